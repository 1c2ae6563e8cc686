"""`hansa serve`: a web app to play games against agents and each other, and step through logs.

`hansa.web.sessions` holds games server-side (no web framework needed, so it is testable alone),
`hansa.web.access` says who a request's token is (a seat, the host, a spectator),
`hansa.web.views` builds what that viewer may see, `hansa.web.runner` lets agents think off the
request path, `hansa.web.board` turns a board IR into the layout the page draws,
`hansa.web.guard` is the door (Host, Origin, JSON only) and `hansa.web.app` the starlette
application. Only `app` and `guard` are about HTTP (the optional `web` extra).
"""
