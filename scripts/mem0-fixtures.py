"""Write the mem0 importer's fixtures with mem0's own released package.

mem0 runs fully offline here: memories are added with `infer=False` (no
LLM extracts facts), its vectors come from a local HTTP server that speaks
OpenAI's embeddings protocol (deterministic 16-dimension vectors from a
hash of the text), and its vector store is Qdrant's local on-disk mode.
The files are what mem0's own calls answer: `get_all` and `search`.

Usage: python mem0-fixtures.py OUT_DIR
"""
import hashlib
import json
import os
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

os.environ["MEM0_TELEMETRY"] = "False"
DIMS = 16


def vector(text):
    digest = hashlib.sha256(text.encode()).digest()
    v = [(b - 128) / 128.0 for b in digest[:DIMS]]
    norm = sum(x * x for x in v) ** 0.5
    return [x / norm for x in v]


class Embeddings(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = [{"object": "embedding", "index": i, "embedding": vector(str(t))}
                for i, t in enumerate(inputs)]
        out = json.dumps({"object": "list", "data": data, "model": body.get("model", "local"),
                          "usage": {"prompt_tokens": 1, "total_tokens": 1}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args):
        pass


def main(out_dir):
    server = HTTPServer(("127.0.0.1", 0), Embeddings)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}/v1"
    work = tempfile.mkdtemp()
    from mem0 import Memory

    local = {"api_key": "local", "openai_base_url": base}
    memory = Memory.from_config({
        "embedder": {"provider": "openai", "config": {**local, "model": "local", "embedding_dims": DIMS}},
        "llm": {"provider": "openai", "config": {**local, "model": "unused"}},
        "vector_store": {"provider": "qdrant", "config": {
            "path": os.path.join(work, "qdrant"), "embedding_model_dims": DIMS,
            "collection_name": "cairn_fixture", "on_disk": True}},
        "history_db_path": os.path.join(work, "history.db"),
    })
    memory.add("Prefers dark mode in every editor", user_id="alice",
               metadata={"source": "settings"}, infer=False)
    memory.add("Works on the atlas deploy pipeline", user_id="alice", infer=False)
    memory.add([{"role": "user", "content": "My flight to Lisbon leaves on 3 June"}],
               user_id="alice", agent_id="travel", infer=False)
    memory.add("Keeps the team's runbooks in the ops wiki", agent_id="ops-bot", infer=False)
    alice = {"user_id": "alice"}
    dark = next(m for m in memory.get_all(filters=alice)["results"]
                if m["memory"].startswith("Prefers dark mode"))
    memory.update(dark["id"], "Prefers dark mode in every editor and terminal")

    answers = {
        "get_all_alice.json": memory.get_all(filters=alice),
        "get_all_ops_bot.json": memory.get_all(filters={"agent_id": "ops-bot"}),
        "search_alice.json": memory.search("Works on the atlas deploy pipeline", filters=alice),
    }
    os.makedirs(out_dir, exist_ok=True)
    for name, answer in answers.items():
        answer["results"].sort(key=lambda m: m["memory"])
        with open(os.path.join(out_dir, name), "w") as f:
            json.dump(answer, f, indent=2, sort_keys=True)
            f.write("\n")
    server.shutdown()


if __name__ == "__main__":
    main(sys.argv[1])
