"""rolebook: per-role memory for AI agents."""

__version__ = "0.1.0"
