"""Layer 1, the networks: parameters with a leading seed axis, the recurrent cells and their one sequence op,
per-member dropout, attention, and the allocator that keeps a step's freed memory. Imports nothing above the
package root."""
