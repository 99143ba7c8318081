#!/usr/bin/env python3
"""Reference all-MiniLM-L6-v2 vectors for cairn-embed's parity test.

An independent implementation of the model, written for this purpose: a
plain numpy forward pass of BERT in float64 (embeddings + LayerNorm, 6
post-norm layers of 12-head self-attention and an exact-erf GELU
feed-forward block, attention mask), then mean pooling over the real tokens
and L2 normalisation, as sentence-transformers does. Tokenisation uses the
Python `tokenizers` package on the same tokenizer.json, with the settings
cairn-embed uses: truncation at 256 tokens, padding to the longest input.

It reads the model files fetched by scripts/fetch-model.sh (same directory
rule: $CAIRN_MODEL_DIR, else ${XDG_DATA_HOME:-~/.local/share}/cairn/models/
all-MiniLM-L6-v2, or --model-dir) and writes
crates/cairn-embed/tests/fixtures/reference_vectors.json: each sentence, its
token ids and its vector rounded to 7 decimals.

    python3 -m venv .venv
    .venv/bin/pip install numpy safetensors tokenizers
    scripts/fetch-model.sh
    .venv/bin/python scripts/reference_embeddings.py
"""

import argparse
import hashlib
import json
import math
import os
import sys
from pathlib import Path

try:
    import numpy as np
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer
except ImportError as e:  # pragma: no cover - setup message
    sys.exit(f"{e}: run `pip install numpy safetensors tokenizers` (in a venv) first")

MAX_TOKENS = 256
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"

LONG = " ".join(
    f"Paragraph {i}: the agent stored a memory about the deployment pipeline, "
    "noting that builds on the shared runner take roughly eighteen minutes, that "
    "the staging database is refreshed every night at 02:00 UTC, and that the "
    "user would rather receive concise summaries than long explanations."
    for i in range(1, 9)
)

SENTENCES = [
    "memory",
    "Hello world",
    "The user prefers dark mode and short answers.",
    "Meeting on 2024-03-15 at 14:30 UTC; budget $1,250.75 (approx. 12% over).",
    "See https://example.com/docs?id=42&lang=en for DETAILS about API_KEY rotation.",
    "Café déjà vu — naïve façade, crème brûlée 🚀🔥✅ emoji and accents.",
    "机器学习模型在本地运行。日本語のテキストも含まれています。",
    "Привет, мир! مرحبا بالعالم",
    "?!...",
    "",
    "fn main() { let xs: Vec<u32> = (0..10).map(|i| i * 2).collect(); println!(\"{:?}\", xs); }",
    "  line one\n\tline two   \n\n",
    "Cairn keeps what an agent learns across sessions: facts, preferences, decisions "
    "and their reasons, so that the next conversation starts where the last one ended "
    "instead of from nothing, and recall ranks memories by meaning, recency and importance.",
    LONG,
]


def default_model_dir() -> Path:
    if os.environ.get("CAIRN_MODEL_DIR"):
        return Path(os.environ["CAIRN_MODEL_DIR"])
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return Path(data) / "cairn" / "models" / "all-MiniLM-L6-v2"


_erf = np.frompyfunc(math.erf, 1, 1)


def gelu(x):
    """Exact GELU, x * Phi(x), as BERT's "gelu" activation."""
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)).astype(np.float64))


def layer_norm(x, w, b, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def dense(x, weights, prefix):
    # PyTorch Linear: y = x W^T + b, W stored as (out, in).
    return x @ weights[prefix + ".weight"].T + weights[prefix + ".bias"]


def encode(weights, cfg, ids, type_ids, mask):
    """Last hidden states for a padded batch: ids/type_ids/mask are (b, t)."""
    b, t = ids.shape
    h = cfg["hidden_size"]
    heads = cfg["num_attention_heads"]
    hd = h // heads
    eps = cfg["layer_norm_eps"]
    x = (
        weights["embeddings.word_embeddings.weight"][ids]
        + weights["embeddings.token_type_embeddings.weight"][type_ids]
        + weights["embeddings.position_embeddings.weight"][np.arange(t)][None, :, :]
    )
    x = layer_norm(
        x,
        weights["embeddings.LayerNorm.weight"],
        weights["embeddings.LayerNorm.bias"],
        eps,
    )
    # 0 where attended, a huge negative number on padding keys.
    bias = (1.0 - mask[:, None, None, :]) * np.finfo(np.float64).min

    def split(y):  # (b, t, h) -> (b, heads, t, hd)
        return y.reshape(b, t, heads, hd).transpose(0, 2, 1, 3)

    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        q = split(dense(x, weights, p + "attention.self.query"))
        k = split(dense(x, weights, p + "attention.self.key"))
        v = split(dense(x, weights, p + "attention.self.value"))
        scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(hd) + bias
        scores = scores - scores.max(-1, keepdims=True)
        probs = np.exp(scores)
        probs = probs / probs.sum(-1, keepdims=True)
        ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(b, t, h)
        attn = dense(ctx, weights, p + "attention.output.dense")
        x = layer_norm(
            attn + x,
            weights[p + "attention.output.LayerNorm.weight"],
            weights[p + "attention.output.LayerNorm.bias"],
            eps,
        )
        inner = gelu(dense(x, weights, p + "intermediate.dense"))
        out = dense(inner, weights, p + "output.dense")
        x = layer_norm(
            out + x,
            weights[p + "output.LayerNorm.weight"],
            weights[p + "output.LayerNorm.bias"],
            eps,
        )
    return x


def main():
    root = Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model-dir", type=Path, default=default_model_dir())
    ap.add_argument(
        "--out",
        type=Path,
        default=root / "crates/cairn-embed/tests/fixtures/reference_vectors.json",
    )
    args = ap.parse_args()

    weights_path = args.model_dir / "model.safetensors"
    if not weights_path.is_file():
        sys.exit(f"{weights_path} is missing: run scripts/fetch-model.sh first")
    digest = hashlib.sha256(weights_path.read_bytes()).hexdigest()
    if digest != WEIGHTS_SHA256:
        sys.exit(f"{weights_path} has SHA-256 {digest}, expected {WEIGHTS_SHA256}")

    cfg = json.loads((args.model_dir / "config.json").read_text())
    assert cfg["hidden_act"] == "gelu" and cfg["position_embedding_type"] == "absolute"
    weights = {k: v.astype(np.float64) for k, v in load_file(str(weights_path)).items()}

    tok = Tokenizer.from_file(str(args.model_dir / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=MAX_TOKENS)
    tok.enable_padding(pad_id=0, pad_type_id=0, pad_token="[PAD]")  # longest in batch
    encs = tok.encode_batch(SENTENCES)
    ids = np.array([e.ids for e in encs], dtype=np.int64)
    type_ids = np.array([e.type_ids for e in encs], dtype=np.int64)
    mask = np.array([e.attention_mask for e in encs], dtype=np.float64)

    hidden = encode(weights, cfg, ids, type_ids, mask)
    summed = (hidden * mask[:, :, None]).sum(1)
    pooled = summed / np.maximum(mask.sum(1, keepdims=True), 1e-9)
    vectors = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    items = []
    for text, enc, m, vec in zip(SENTENCES, encs, mask, vectors):
        n = int(m.sum())
        items.append(
            {
                "text": text,
                "ids": enc.ids[:n],
                "vector": [round(float(x), 7) for x in vec],
            }
        )
    fixture = {
        "model": "all-MiniLM-L6-v2",
        "weights_sha256": digest,
        "made_by": "scripts/reference_embeddings.py (numpy float64 BERT forward pass)",
        "max_tokens": MAX_TOKENS,
        "items": items,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    # One item per line keeps the file diffable.
    head = json.dumps({k: v for k, v in fixture.items() if k != "items"}, ensure_ascii=False)
    body = ",\n".join("  " + json.dumps(item, ensure_ascii=False) for item in items)
    args.out.write_text(head[:-1] + ',\n "items": [\n' + body + "\n ]\n}\n")
    print(f"wrote {len(items)} reference vectors to {args.out}")


if __name__ == "__main__":
    main()
