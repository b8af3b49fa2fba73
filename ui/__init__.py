"""The Gradio page: chat, rule browser, sources."""
