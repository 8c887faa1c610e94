"""Durable files on a local file system: whole files replaced crash-safe,
records framed by length and CRC32 (a torn one is found), and syncs that
cost one flush for many files where the platform allows (the local store
and the local event log share them)."""

from __future__ import annotations

import ctypes
import os
import struct
import zlib
from pathlib import Path

_FRAME = struct.Struct(">II")  # payload length, CRC32 of the payload


def write_atomically(path: Path, data: bytes) -> None:
    """Replace `path` with `data` so that a crash leaves the old file or the
    new one, never a mix: temporary file, fsync, rename, fsync the folder."""
    temporary = path.with_name(f".{path.name}.tmp")
    with open(temporary, "wb") as file:
        file.write(data)
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, path)
    fsync_folder(path.parent)


def fsync_folder(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def read_frames(data: bytes) -> tuple[list[bytes], int]:
    """The whole records at the start of `data`, and where they end: a torn
    or corrupt record (a crash mid-write) and anything after it are not read."""
    records: list[bytes] = []
    offset = 0
    while offset + _FRAME.size <= len(data):
        length, crc = _FRAME.unpack_from(data, offset)
        end = offset + _FRAME.size + length
        if end > len(data):
            break
        payload = data[offset + _FRAME.size:end]
        if zlib.crc32(payload) != crc:
            break
        records.append(payload)
        offset = end
    return records, offset


_libc = ctypes.CDLL(None, use_errno=True)
_syncfs = getattr(_libc, "syncfs", None)


def sync_all(descriptors: list[int]) -> int:
    """Make the writes of every descriptor durable; returns the syncs issued.
    Each table has one command in flight, so a busy room's batch holds one
    entry for each of many tables' files: one syncfs (Linux) flushes the file
    system they share at once, where an fsync each would cost a disk flush
    per move (docs/benchmarks.md, "Durability", has what each costs)."""
    if len(descriptors) > 1 and _syncfs is not None:
        _sync_file_system(descriptors[0])
        return 1
    for descriptor in descriptors:
        os.fsync(descriptor)
    return len(descriptors)


def sync_paths(paths: list[Path]) -> None:
    """`sync_all` of files and folders by path: a file's data, a folder's
    entries (the files created, renamed or deleted in it)."""
    whole_file_system = len(paths) > 1 and _syncfs is not None
    descriptors = [os.open(path, os.O_RDONLY) for path in (paths[:1] if whole_file_system else paths)]
    try:
        if whole_file_system:
            _sync_file_system(descriptors[0])
        else:
            for descriptor in descriptors:
                os.fsync(descriptor)
    finally:
        for descriptor in descriptors:
            os.close(descriptor)


def _sync_file_system(descriptor: int) -> None:
    assert _syncfs is not None
    if _syncfs(descriptor) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"syncfs: {os.strerror(error)}")


def frame(payload: bytes) -> bytes:
    return _FRAME.pack(len(payload), zlib.crc32(payload)) + payload
