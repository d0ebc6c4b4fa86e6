"""TF's ``SaverDef`` and ``MetaGraphDef``, this project's way.

TF describes a Saver by a ``SaverDef`` proto (the names of its filename tensor, its save and
restore nodes, ``max_to_keep``, ``sharded``, the checkpoint format) and a whole exported graph
by a ``MetaGraphDef`` (the ``GraphDef``, the collections, the ``SaverDef``).  Here a graph is
exported as the project's JSON (:func:`staticgraph.interop.serialize.to_json`), so a
:class:`MetaGraphDef` holds that text; both classes print as TF's protos print (text format),
so ``tf.train.write_graph(saver.as_saver_def(), ...)`` writes what TF writes.
"""
from __future__ import annotations

import dataclasses

from ..framework.errors import DataLossError

__all__ = ["SaverDef", "MetaGraphDef", "MetaGraphFileError"]


@dataclasses.dataclass
class SaverDef:
    """TF's ``SaverDef`` fields.  Saving and restoring run in Python here (``Saver.save`` and
    ``Saver.restore``, which write all or nothing), not as graph nodes, so
    ``save_tensor_name`` and ``restore_op_name`` stay empty; ``filename_tensor_name`` names
    the saver's ``save/Const:0`` as in TF."""

    LEGACY, V1, V2 = 0, 1, 2   # TF's CheckpointFormatVersion

    filename_tensor_name: str = ""
    save_tensor_name: str = ""
    restore_op_name: str = ""
    max_to_keep: int = 0
    sharded: bool = False
    keep_checkpoint_every_n_hours: float = 0.0
    version: int = 0

    def __str__(self) -> str:
        """The proto's text format: fields at their default left out, as protobuf prints."""
        lines = []
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value == field.default:
                continue
            if field.name == "version":
                text = ("LEGACY", "V1", "V2")[value] if value in (0, 1, 2) else str(value)
            elif isinstance(value, bool):
                text = "true" if value else "false"
            elif isinstance(value, str):
                text = '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
            else:
                text = f"{value:g}" if isinstance(value, float) else str(value)
            lines.append(f"{field.name}: {text}\n")
        return "".join(lines)

    def SerializeToString(self, deterministic: bool = False) -> bytes:  # noqa: N802 (TF's name)
        return str(self).encode("utf-8")


class MetaGraphDef:
    """An exported graph: the JSON text :func:`import_meta_graph` reads (``graph_json``), and
    the ``saver_def`` of the Saver that exported it, if one did.  Equal when both are."""

    def __init__(self, graph_json: str, saver_def: SaverDef | None = None):
        self.graph_json = graph_json
        self.saver_def = saver_def

    def HasField(self, name: str) -> bool:  # noqa: N802 (TF's name)
        return name == "saver_def" and self.saver_def is not None

    def SerializeToString(self, deterministic: bool = False) -> bytes:  # noqa: N802 (TF's name)
        return self.graph_json.encode("utf-8")

    def __str__(self) -> str:
        return self.graph_json

    def __eq__(self, other) -> bool:
        return (isinstance(other, MetaGraphDef) and other.graph_json == self.graph_json
                and other.saver_def == self.saver_def)

    __hash__ = None   # mutable, as a proto

    def __repr__(self) -> str:
        return f"<MetaGraphDef of {len(self.graph_json)} characters of JSON graph>"


class MetaGraphFileError(DataLossError, OSError):
    """A meta graph file that cannot be read as one: TF raises ``OSError`` ("Cannot parse
    file ..."); the project's loaders raise ``DataLossError``; this is both."""
