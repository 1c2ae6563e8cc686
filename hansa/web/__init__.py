"""`hansa serve`: a local web app to play games against agents and step through game logs.

`hansa.web.sessions` holds games server-side (no web framework needed, so it is testable alone),
`hansa.web.board` turns a board IR into the layout the page draws, `hansa.web.app` is the
starlette application. Only `app` imports starlette (the optional `web` extra).
"""
