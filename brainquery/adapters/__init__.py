"""Brain Query inside the tools people already use, each an optional extra:

- `brainquery.adapters.langchain`: a LangChain retriever (`pip install 'brainquery[langchain]'`)
- `brainquery.adapters.llamaindex`: a LlamaIndex retriever (`[llamaindex]`)
- `brainquery.adapters.mcp_server`: `brainquery mcp`, a Model Context Protocol server (`[mcp]`)

This package imports none of those frameworks: only the module you import does, so the
core install works without them.
"""
