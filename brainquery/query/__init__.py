"""The query side: routing, time windows, BM25, the evidence graph, time weights, scorers,
ranking, answers, and the in-memory index they read. Reads the store; never writes it."""
