"""`__NAME__`: a module for the CRM, built against `crm:plugin@__WIT_VERSION__`
(`wit/plugin.wit`, the contract's published text) with componentize-py. It
serves `GET /api/__NAME__` and counts its calls in the organization's store.

The host has checked the token, the organization and the permission before
`handle` runs; the store is already scoped to the organization and to this
module. Each call runs in a fresh instance with a deadline and a memory cap.
"""

import json

from componentize_py_types import Err
from wit_world import exports
from wit_world.imports import store, types

from counting import calls_after


def answer(status: int, body: dict) -> types.Response:
    return types.Response(status=status, headers=[("content-type", "application/json")], body=json.dumps(body).encode())


class Handler(exports.Handler):
    def describe(self) -> types.ModuleInfo:
        # `permission`: what a token needs (e.g. "__NAME__:read"); None: any token.
        route = types.Route(method="GET", path="/__NAME__", permission=None, module=None, deadline_ms=None)
        return types.ModuleInfo(name="__NAME__", version="0.1.0", routes=[route])

    def handle(self, caller: types.Caller, request: types.Request) -> types.Response:
        try:
            calls = calls_after(store.get(b"calls"))
            store.put(b"calls", str(calls).encode())
        except Err:
            return answer(500, {"success": False, "message": "The store failed"})
        return answer(200, {"success": True, "organization": caller.org_id, "calls": calls})
