"""Location inference and de-identification (no Django here)."""
