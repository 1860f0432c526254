"""The store side: the Chroma store (the only importer of chromadb), the writer lock,
chunking, embeddings and their model cache, and the indexer that writes documents in.
Never imports the query side."""
