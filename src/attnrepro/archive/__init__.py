"""The paper artifact: a BagIt bag holding a Workflow Run RO-Crate, its front page, and the report's table pages."""
