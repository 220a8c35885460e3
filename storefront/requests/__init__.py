"""Serving a request: its id, its helpers and statistics, the request log middleware, what runs after the response,
typed input, which views staff may use while acting."""
