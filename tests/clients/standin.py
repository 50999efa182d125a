"""A stand-in for a model API on 127.0.0.1 that records every request it gets.

It speaks the Anthropic Messages API (what Claude Code calls), streamed or not, the
Gemini API (Gemini CLI) and the OpenAI Responses API (Codex, text only), and plays a
short script on the main conversation (the requests that offer the Bash tool):
the n-th tool call of `steps` when n tool results came back so far, then text. The
recorded request bodies show exactly what reached the model's context.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class StandIn:
    """Start with `with StandIn(steps) as model:`; `model.url`, `model.requests`."""

    def __init__(self, steps: list[tuple[str, dict[str, Any]]] = (), reply: str = "Done."):  # type: ignore[assignment]
        self.steps = list(steps)
        self.reply = reply
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                self._json(200, {"data": [], "has_more": False})

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.end_headers()

            def do_POST(self) -> None:
                size = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(size) or b"{}")
                with standin.lock:
                    standin.requests.append({"path": self.path, "body": body})
                if "count_tokens" in self.path or ":countTokens" in self.path:
                    self._json(200, {"input_tokens": 100, "totalTokens": 100})
                    return
                if "GenerateContent" in self.path or "generateContent" in self.path:
                    self._gemini(body)
                    return
                if self.path.rstrip("/").endswith("/responses"):
                    self._responses(body)
                    return
                blocks = standin.answer(body)
                if body.get("stream"):
                    self._stream(blocks)
                else:
                    stop = "tool_use" if blocks[0]["type"] == "tool_use" else "end_turn"
                    self._json(200, _message(blocks, stop))

            def _gemini(self, body: dict[str, Any]) -> None:
                """The Gemini API: the script's next function call, or text; streamed as SSE when asked."""
                parts = standin.gemini_answer(body)
                answer = {
                    "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
                    "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 5, "totalTokenCount": 105},
                    "modelVersion": "gemini-standin",
                }
                if "alt=sse" in self.path:
                    self.send_response(200)
                    self.send_header("content-type", "text/event-stream")
                    self.end_headers()
                    self.wfile.write(f"data: {json.dumps(answer)}\r\n\r\n".encode())
                    self.wfile.flush()
                else:
                    self._json(200, answer)

            def _responses(self, body: dict[str, Any]) -> None:
                """The OpenAI Responses API (what Codex calls), streamed: the script's next
                function call on the main turn (the request that offers exec_command), else
                one message of text."""
                done = {"input_tokens": 100, "input_tokens_details": None, "output_tokens": 5}
                done |= {"output_tokens_details": None, "total_tokens": 105}
                message: dict[str, Any] = {"type": "message", "role": "assistant", "id": "msg_standin"}
                message["content"] = [{"type": "output_text", "text": standin.reply}]
                call = standin.responses_answer(body)
                if call is not None:
                    message = call
                events = [
                    {"type": "response.created", "response": {"id": "resp_standin"}},
                    {"type": "response.output_item.done", "item": message},
                    {"type": "response.completed", "response": {"id": "resp_standin", "usage": done}},
                ]
                raw = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def _json(self, code: int, data: dict[str, Any]) -> None:
                raw = json.dumps(data).encode()
                self.send_response(code)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def _stream(self, blocks: list[dict[str, Any]]) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.end_headers()
                stop = "tool_use" if blocks[0]["type"] == "tool_use" else "end_turn"
                events: list[dict[str, Any]] = [{"type": "message_start", "message": _message([], None)}]
                for n, block in enumerate(blocks):
                    if block["type"] == "text":
                        events.append(
                            {"type": "content_block_start", "index": n, "content_block": {"type": "text", "text": ""}}
                        )
                        events.append(
                            {
                                "type": "content_block_delta",
                                "index": n,
                                "delta": {"type": "text_delta", "text": block["text"]},
                            }
                        )
                    else:
                        start = {**block, "input": {}}
                        events.append({"type": "content_block_start", "index": n, "content_block": start})
                        partial = json.dumps(block["input"])
                        events.append(
                            {
                                "type": "content_block_delta",
                                "index": n,
                                "delta": {"type": "input_json_delta", "partial_json": partial},
                            }
                        )
                    events.append({"type": "content_block_stop", "index": n})
                events.append(
                    {
                        "type": "message_delta",
                        "delta": {"stop_reason": stop, "stop_sequence": None},
                        "usage": {"output_tokens": 5},
                    }
                )
                events.append({"type": "message_stop"})
                for event in events:
                    self.wfile.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def answer(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """The script: the next step's tool call where Bash is offered, else `reply`."""
        tools = {t.get("name") for t in body.get("tools") or []}
        done = sum(
            1
            for message in body.get("messages") or []
            for part in (message.get("content") if isinstance(message.get("content"), list) else [])
            if isinstance(part, dict) and part.get("type") == "tool_result"
        )
        if tools & {"Bash", "bash"} and done < len(self.steps):  # Claude Code's shell tool, Copilot CLI's
            name, arguments = self.steps[done]
            return [{"type": "tool_use", "id": f"toolu_standin_{done}", "name": name, "input": arguments}]
        return [{"type": "text", "text": self.reply}]

    def gemini_answer(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """The script for the Gemini API: steps are (function name, args) on the main turn
        (the request that declares run_shell_command), counted by the function responses."""
        declared = {f.get("name") for tool in body.get("tools") or [] for f in tool.get("functionDeclarations") or []}
        parts = [part for content in body.get("contents") or [] for part in content.get("parts") or []]
        done = sum(1 for part in parts if "functionResponse" in part)
        if "run_shell_command" in declared and done < len(self.steps):
            name, arguments = self.steps[done]
            return [{"functionCall": {"name": name, "args": arguments}}]
        return [{"text": self.reply}]

    def responses_answer(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """The script for the Responses API: the next step as a function call where
        exec_command is offered (Codex's shell tool), counted by the outputs that came back."""
        offered = {t.get("name") for t in body.get("tools") or []}
        done = sum(1 for item in body.get("input") or [] if item.get("type") == "function_call_output")
        if "exec_command" not in offered or done >= len(self.steps):
            return None
        name, arguments = self.steps[done]
        call_id = f"call_standin_{done}"
        return {
            "type": "function_call",
            "id": f"fc_{done}",
            "call_id": call_id,
            "name": name,
            "arguments": json.dumps(arguments),
        }

    def gemini_contexts(self) -> list[str]:
        """Every Gemini main-turn request (one that declares tools), as the text it carries."""
        return [json.dumps(r["body"]) for r in self.requests if r["body"].get("tools")]

    def tool_results(self) -> list[str]:
        """The text of every tool result the last main-conversation request carried."""
        main = [r["body"] for r in self.requests if r["body"].get("tools")]
        out = []
        for message in main[-1].get("messages") or [] if main else []:
            for part in message.get("content") if isinstance(message.get("content"), list) else []:
                if isinstance(part, dict) and part.get("type") == "tool_result":
                    content = part.get("content")
                    out.append(content if isinstance(content, str) else json.dumps(content))
        return out

    def contexts(self) -> list[str]:
        """Every main-conversation request (one that offers tools), as the text it carries."""
        return [json.dumps(r["body"]) for r in self.requests if r["body"].get("tools")]

    def __enter__(self) -> StandIn:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def _message(content: list[dict[str, Any]], stop: str | None) -> dict[str, Any]:
    return {
        "id": "msg_standin",
        "type": "message",
        "role": "assistant",
        "model": "claude-standin",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 100, "output_tokens": 5},
    }
