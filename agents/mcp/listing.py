# ruff: noqa: E501  (the data below is the SDK's JSON as it is)
"""What the SDK server answers to the handshake and the listings, for `front.py`.

Generated from the real server (`python agents/mcp/listing.py` in a checkout rewrites
the data below); tests/agents/test_mcp_front.py fails when it differs from what the
installed SDK answers, so a change to a tool or the SDK cannot go unnoticed.
"""

from __future__ import annotations

import json
from typing import Any

_DATA = r"""
{
 "initialize": {
  "capabilities": {
   "prompts": {
    "listChanged": false
   },
   "resources": {
    "listChanged": false,
    "subscribe": false
   },
   "tools": {
    "listChanged": false
   }
  },
  "serverInfo": {
   "name": "rolebook",
   "version": "0.1.0"
  }
 },
 "listings": {
  "prompts/list": {
   "prompts": [
    {
     "arguments": [
      {
       "name": "role",
       "required": true
      }
     ],
     "description": "The memory protocol: read at start, search before repeating work, update at the end.",
     "name": "memory_protocol"
    }
   ]
  },
  "resources/list": {
   "resources": [
    {
     "description": "The rules rolebook manages, one line each (in the client's root once a call has\n        resolved it: a static resource gets no context to ask with).",
     "mimeType": "text/markdown",
     "name": "rules",
     "uri": "rolebook://rules"
    }
   ]
  },
  "resources/templates/list": {
   "resourceTemplates": [
    {
     "description": "A role's notebook, as it is on disk.",
     "mimeType": "text/markdown",
     "name": "notebook",
     "uriTemplate": "rolebook://notebook/{role}"
    }
   ]
  },
  "tools/list": {
   "tools": [
    {
     "annotations": {
      "openWorldHint": false,
      "readOnlyHint": true
     },
     "description": "Session start: the role's notebook as it is, then at most 5 alerts (and, with task, relevant memory).",
     "inputSchema": {
      "properties": {
       "budget": {
        "default": 500,
        "description": "Token budget of the task hits.",
        "maximum": 20000,
        "minimum": 50,
        "title": "Budget",
        "type": "integer"
       },
       "role": {
        "anyOf": [
         {
          "type": "string"
         },
         {
          "type": "null"
         }
        ],
        "default": null,
        "description": "The agent role, e.g. coder, designer, qa (default: the server's --as role).",
        "title": "Role"
       },
       "task": {
        "anyOf": [
         {
          "type": "string"
         },
         {
          "type": "null"
         }
        ],
        "default": null,
        "description": "What you are about to do: adds relevant memory.",
        "title": "Task"
       }
      },
      "title": "readArguments",
      "type": "object"
     },
     "name": "read"
    },
    {
     "annotations": {
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": false,
      "readOnlyHint": false
     },
     "description": "Session end: add entries newest first; the limits prune the oldest to the archive.\n        Each added mistake lists the earlier ones it looks like (possible_recurrences): if one\n        is the same mistake, call update again with the same mistake, date and same_as.",
     "inputSchema": {
      "properties": {
       "date": {
        "anyOf": [
         {
          "type": "string"
         },
         {
          "type": "null"
         }
        ],
        "default": null,
        "description": "YYYY-MM-DD (default: today).",
        "title": "Date"
       },
       "feedback": {
        "default": [],
        "description": "Feedback from people, quoted.",
        "items": {
         "type": "string"
        },
        "title": "Feedback",
        "type": "array"
       },
       "learnings": {
        "default": [],
        "description": "Things learned that will save time.",
        "items": {
         "type": "string"
        },
        "title": "Learnings",
        "type": "array"
       },
       "log": {
        "default": [],
        "description": "What this session did, e.g. 'WQ-12: fixed login'.",
        "items": {
         "type": "string"
        },
        "title": "Log",
        "type": "array"
       },
       "mistakes": {
        "default": [],
        "description": "Mistakes, each with what to do instead.",
        "items": {
         "type": "string"
        },
        "title": "Mistakes",
        "type": "array"
       },
       "role": {
        "anyOf": [
         {
          "type": "string"
         },
         {
          "type": "null"
         }
        ],
        "default": null,
        "description": "The agent role, e.g. coder, designer, qa (default: the server's --as role).",
        "title": "Role"
       },
       "same_as": {
        "anyOf": [
         {
          "type": "string"
         },
         {
          "type": "null"
         }
        ],
        "default": null,
        "description": "With exactly one mistake: the id of the earlier mistake it is the same as (from possible_recurrences of an earlier update); counts it with that one.",
        "title": "Same As"
       }
      },
      "title": "updateArguments",
      "type": "object"
     },
     "name": "update"
    },
    {
     "annotations": {
      "openWorldHint": false,
      "readOnlyHint": true
     },
     "description": "Search everything the roles remember: one line a hit, `[date] role/section: text #id`\n        (`team:role/section` for a hit from a shared root).",
     "inputSchema": {
      "properties": {
       "budget": {
        "default": 500,
        "description": "Tokens at most.",
        "maximum": 20000,
        "minimum": 50,
        "title": "Budget",
        "type": "integer"
       },
       "limit": {
        "default": 5,
        "maximum": 100,
        "minimum": 1,
        "title": "Limit",
        "type": "integer"
       },
       "query": {
        "description": "Words to look for; any text is fine.",
        "title": "Query",
        "type": "string"
       },
       "role": {
        "anyOf": [
         {
          "type": "string"
         },
         {
          "type": "null"
         }
        ],
        "default": null,
        "description": "Only this role.",
        "title": "Role"
       },
       "root_only": {
        "default": false,
        "description": "Only this project, not its shared roots.",
        "title": "Root Only",
        "type": "boolean"
       },
       "section": {
        "anyOf": [
         {
          "type": "string"
         },
         {
          "type": "null"
         }
        ],
        "default": null,
        "description": "Only this section or category, e.g. mistakes.",
        "title": "Section"
       },
       "since": {
        "anyOf": [
         {
          "type": "string"
         },
         {
          "type": "null"
         }
        ],
        "default": null,
        "description": "YYYY-MM-DD.",
        "title": "Since"
       },
       "status": {
        "anyOf": [
         {
          "type": "string"
         },
         {
          "type": "null"
         }
        ],
        "default": null,
        "description": "active, archived, promoted, rule or all.",
        "title": "Status"
       },
       "tag": {
        "anyOf": [
         {
          "type": "string"
         },
         {
          "type": "null"
         }
        ],
        "default": null,
        "description": "Only items with this tag.",
        "title": "Tag"
       },
       "until": {
        "anyOf": [
         {
          "type": "string"
         },
         {
          "type": "null"
         }
        ],
        "default": null,
        "description": "YYYY-MM-DD.",
        "title": "Until"
       }
      },
      "required": [
       "query"
      ],
      "title": "searchArguments",
      "type": "object"
     },
     "name": "search"
    },
    {
     "annotations": {
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": false,
      "readOnlyHint": false
     },
     "description": "Keep an item in long-term memory; an equal item already there is returned instead.",
     "inputSchema": {
      "properties": {
       "category": {
        "description": "A long-term category, e.g. rejected_designs.",
        "title": "Category",
        "type": "string"
       },
       "role": {
        "anyOf": [
         {
          "type": "string"
         },
         {
          "type": "null"
         }
        ],
        "default": null,
        "description": "The agent role, e.g. coder, designer, qa (default: the server's --as role).",
        "title": "Role"
       },
       "tags": {
        "default": [],
        "description": "Tags.",
        "items": {
         "type": "string"
        },
        "title": "Tags",
        "type": "array"
       },
       "text": {
        "description": "The item.",
        "title": "Text",
        "type": "string"
       }
      },
      "required": [
       "category",
       "text"
      ],
      "title": "storeArguments",
      "type": "object"
     },
     "name": "store"
    },
    {
     "annotations": {
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": false,
      "readOnlyHint": false
     },
     "description": "Log an experience event; outcomes of one context hash add up to a success rate.",
     "inputSchema": {
      "properties": {
       "command": {
        "default": "",
        "description": "The exact command, if any.",
        "title": "Command",
        "type": "string"
       },
       "context": {
        "default": "",
        "description": "What was being attempted.",
        "title": "Context",
        "type": "string"
       },
       "lesson": {
        "description": "What was learned.",
        "title": "Lesson",
        "type": "string"
       },
       "outcome": {
        "anyOf": [
         {
          "type": "string"
         },
         {
          "type": "null"
         }
        ],
        "default": null,
        "description": "k/n: worked k times in n.",
        "title": "Outcome"
       },
       "role": {
        "anyOf": [
         {
          "type": "string"
         },
         {
          "type": "null"
         }
        ],
        "default": null,
        "description": "The agent role, e.g. coder, designer, qa (default: the server's --as role).",
        "title": "Role"
       },
       "tags": {
        "default": [],
        "description": "Keywords.",
        "items": {
         "type": "string"
        },
        "title": "Tags",
        "type": "array"
       },
       "type": {
        "description": "error, success or pattern.",
        "title": "Type",
        "type": "string"
       }
      },
      "required": [
       "type",
       "lesson"
      ],
      "title": "logArguments",
      "type": "object"
     },
     "name": "log"
    },
    {
     "annotations": {
      "openWorldHint": false,
      "readOnlyHint": true
     },
     "description": "Mistakes that keep coming back, as proposed rules (the structured content has them all).\n        A candidate whose incidents never say what to do instead has no proposed rule\n        (needs_text): write one and pass it as promote_apply's text.",
     "inputSchema": {
      "properties": {
       "budget": {
        "default": 500,
        "description": "Tokens at most in the text.",
        "maximum": 20000,
        "minimum": 50,
        "title": "Budget",
        "type": "integer"
       },
       "min_dates": {
        "anyOf": [
         {
          "maximum": 100,
          "minimum": 2,
          "type": "integer"
         },
         {
          "type": "null"
         }
        ],
        "default": null,
        "description": "Incidents on at least this many dates (default 3).",
        "title": "Min Dates"
       },
       "role": {
        "anyOf": [
         {
          "type": "string"
         },
         {
          "type": "null"
         }
        ],
        "default": null,
        "description": "Only this role.",
        "title": "Role"
       }
      },
      "title": "promote_reviewArguments",
      "type": "object"
     },
     "name": "promote_review"
    },
    {
     "annotations": {
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": false,
      "readOnlyHint": false
     },
     "description": "Promote one candidate (a rule line in the rules file; its notebook entries leave as\n        promoted), or split or skip it.",
     "inputSchema": {
      "properties": {
       "action": {
        "default": "promote",
        "description": "promote (default); split: its incidents are not one mistake, never group them again; skip: do not propose it again until a new incident joins it.",
        "enum": [
         "promote",
         "split",
         "skip"
        ],
        "title": "Action",
        "type": "string"
       },
       "id": {
        "description": "A candidate id from promote_review.",
        "title": "Id",
        "type": "string"
       },
       "text": {
        "anyOf": [
         {
          "type": "string"
         },
         {
          "type": "null"
         }
        ],
        "default": null,
        "description": "The rule's wording: an instruction (default: the proposal; required when it has none).",
        "title": "Text"
       }
      },
      "required": [
       "id"
      ],
      "title": "promote_applyArguments",
      "type": "object"
     },
     "name": "promote_apply"
    }
   ]
  }
 },
 "versions": [
  "2024-11-05",
  "2025-03-26",
  "2025-06-18",
  "2025-11-25"
 ]
}
"""

_LOADED: dict[str, Any] = json.loads(_DATA)
#: protocol revisions reachable with the initialize handshake, oldest first
HANDSHAKE_VERSIONS: tuple[str, ...] = tuple(_LOADED.get("versions", ()))
#: the initialize result, but its protocolVersion and instructions
INITIALIZE: dict[str, Any] = _LOADED.get("initialize", {})
#: method -> result of the listings the front answers
LISTINGS: dict[str, Any] = _LOADED.get("listings", {})

METHODS = ("tools/list", "prompts/list", "resources/list", "resources/templates/list")

#: What the server is for and how to use it, as MCP clients show it to the model.
_PROTOCOL = (
    "Per-role memory that lasts between sessions (rolebook). {who} "
    "1. Before you start work, call `read` (with `task`: what you are about to do) and follow what the "
    "notebook says. 2. Before you repeat work, or when something fails, call `search` with `query`: a few "
    "words of the problem. 3. Before you finish, call `update` with `mistakes` (each: what went wrong; what "
    "to do instead), `learnings` and `log` ('TASK-ID: what you did'), one short line each; skip what the "
    "notebook already says. 4. When `read` says promotions are due, call `promote_review`, then "
    "`promote_apply` with the candidate's `id` and `text`: the rule, as an instruction. Change the notebook "
    "only through these tools."
)


def instructions(role: str | None) -> str:
    """The memory protocol for an agent that reaches rolebook over MCP: tools and their
    parameters (not CLI commands), and, for a scoped server, the agent's role."""
    who = (
        f"You work as the {role} role: the role parameter of every tool defaults to {role!r}."
        if role
        else "You work in a role (coder, designer, qa, ...): pass it as the role parameter."
    )
    return _PROTOCOL.format(who=who)


def sdk_answers(version: str) -> dict[str, Any]:
    """The SDK server's own answers over real stdio, for a client asking for `version`:
    {"initialize": result, method: result, ...}."""
    import subprocess
    import sys
    import tempfile

    code = "from rolebook.agents.mcp.server import run; run(None, None, None)"
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "probe", "version": "0"}},
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        *({"jsonrpc": "2.0", "id": n, "method": m} for n, m in enumerate(METHODS, 1)),
    ]
    answers: dict[int, Any] = {}
    with (
        tempfile.TemporaryDirectory() as folder,
        subprocess.Popen(
            [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=folder
        ) as server,
    ):
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
        server.stdin.flush()
        while len(answers) < len(METHODS) + 1:  # the server stops at end of input: keep it open till then
            message = json.loads(server.stdout.readline())
            if "id" in message:
                answers[message["id"]] = message.get("result")
        server.stdin.close()
        server.stdout.read()
    return {"initialize": answers[0], **{m: answers[n] for n, m in enumerate(METHODS, 1)}}


def generate() -> str:
    """This module's data, from the installed SDK."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    latest = sdk_answers(HANDSHAKE_PROTOCOL_VERSIONS[-1])
    initialize = {k: v for k, v in latest["initialize"].items() if k not in ("protocolVersion", "instructions")}
    data = {
        "versions": list(HANDSHAKE_PROTOCOL_VERSIONS),
        "initialize": initialize,
        "listings": {m: latest[m] for m in METHODS},
    }
    return json.dumps(data, indent=1, sort_keys=True)


if __name__ == "__main__":
    from pathlib import Path

    path = Path(__file__)
    text = path.read_text(encoding="utf-8")
    start = text.index('_DATA = r"""\n') + len('_DATA = r"""\n')
    end = text.index('\n"""', start)
    path.write_text(text[:start] + generate() + text[end:], encoding="utf-8")
    print(f"wrote {path}")
