"""Play-only copies of checkpoints: the actor without the critic.

Choosing a move reads only the actor (the feature extractor, the policy layers and the action
head); the critic (the value layers and the value head) serves training alone and is half of
a plain MLP checkpoint's weights. The wheel ships play-only copies of its checkpoints (the
build writes them, see ``setup.py``), which is what keeps it under 30 MB; the repository
keeps the full ones, which warm starts and resumed runs need.

A play-only copy is a checkpoint like any other, its metadata marked ``"play_only": true``
with the SHA-256 of the full archive it came from (``full_archive_sha256``). It plays the
same moves as the full checkpoint (the same actor weights, copied byte for byte); a training
run that would start from it is refused, naming the full checkpoint to use instead.

This module uses the standard library alone (the wheel build imports it, without numpy or
torch): a safetensors file is an 8-byte little-endian header length, a JSON header naming
each tensor's dtype, shape and byte range, then the raw bytes.
"""

from __future__ import annotations

import hashlib
import io
import json
import struct
import zipfile
from pathlib import Path

POLICY_MEMBER = "policy.safetensors"

# the critic's tensors in stable-baselines3's layout: the value layers of the MLP extractor,
# the value head, and the critic's own extractor or LSTM where the policy has one
CRITIC_PREFIXES = ("mlp_extractor.value_net.", "value_net.", "vf_features_extractor.",
                   "lstm_critic.", "critic.")


def is_critic(name: str) -> bool:
    """Whether the tensor called ``name`` belongs to the critic (never read to choose a move)."""
    return name.startswith(CRITIC_PREFIXES)


def actor_safetensors(raw: bytes) -> bytes:
    """The safetensors file ``raw`` with the critic's tensors left out (the actor's bytes
    unchanged, in the same order)."""
    if len(raw) < 8:
        raise ValueError("not a safetensors file: shorter than its 8-byte header length")
    (size,) = struct.unpack("<Q", raw[:8])
    if size > len(raw) - 8:
        raise ValueError(f"not a safetensors file: its header length {size} runs past the end")
    header = json.loads(raw[8:8 + size])
    body = raw[8 + size:]
    kept = {"__metadata__": header["__metadata__"]} if "__metadata__" in header else {}
    tensors = sorted((entry["data_offsets"][0], name) for name, entry in header.items()
                     if name != "__metadata__" and not is_critic(name))
    chunks, offset = [], 0
    for _, name in tensors:
        begin, end = header[name]["data_offsets"]
        chunks.append(body[begin:end])
        kept[name] = {**header[name], "data_offsets": [offset, offset + end - begin]}
        offset += end - begin
    text = json.dumps(kept, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # safetensors aligns the data to 8 bytes
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)


def _archive(member_bytes: bytes) -> bytes:
    """A checkpoint archive holding ``policy.safetensors`` alone, with a fixed timestamp (the
    same input gives the same bytes)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        info = zipfile.ZipInfo(POLICY_MEMBER, date_time=(2020, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        zf.writestr(info, member_bytes)
    return buf.getvalue()


def write_play_only(zip_path: str | Path, json_path: str | Path, out_zip: str | Path, out_json: str | Path) -> int:
    """Write the play-only copy of the checkpoint ``zip_path`` + ``json_path`` to ``out_zip``
    + ``out_json`` (which may be the same files); returns the bytes saved."""
    zip_path, json_path, out_zip, out_json = map(Path, (zip_path, json_path, out_zip, out_json))
    full = zip_path.read_bytes()
    meta = json.loads(json_path.read_text())
    if meta.get("play_only"):
        raise ValueError(f"{json_path} is already a play-only checkpoint")
    with zipfile.ZipFile(io.BytesIO(full)) as zf:
        actor = actor_safetensors(zf.read(POLICY_MEMBER))
    archive = _archive(actor)
    meta["play_only"] = True
    meta["full_archive_sha256"] = meta.get("archive_sha256") or hashlib.sha256(full).hexdigest()
    meta["archive_sha256"] = hashlib.sha256(archive).hexdigest()
    out_zip.write_bytes(archive)
    out_json.write_text(json.dumps(meta, indent=2) + "\n")
    return len(full) - len(archive)


__all__ = ["CRITIC_PREFIXES", "actor_safetensors", "is_critic", "write_play_only"]
