"""The question patterns the router tells apart (router.py says what each one means).
A module of its own so the CLI can name them without loading the router."""

PATTERNS = ("logistical", "entity", "historical")
