"""The claims of each paper, one module per paper; :data:`attnrepro.claims.CLAIMS` gathers them."""
