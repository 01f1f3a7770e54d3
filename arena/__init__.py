"""arena: a tournament platform for Santase / Sixty-Six / Schnapsen bots run as external processes."""

__version__ = "0.1.0"
