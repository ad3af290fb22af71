"""Crowdsourcing statistics and aggregation (no Django here)."""
