"""One committed change to one row, typed: what the extractor lands in a staging table.

The pipeline builds these from committed LogMiner rows (parsed and typed) and from snapshot
reads; landing turns lists of them into Arrow batches following ``staging_contract``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Literal

import msgspec

Operation = Literal["r", "c", "u", "d", "t"]


class ChangeRecord(msgspec.Struct, frozen=True, gc=False):
    """A change row of one source table.

    ``values`` maps Oracle column names to Python values in the ``spark_types`` representation,
    holding only the columns the change carries. ``full_image`` says whether it carries every
    column (insert, snapshot read, update under ALL logging); otherwise ``_present`` lists
    ``values``' columns. A delete carries what its WHERE clause held (at least the key).
    A table reset (``op`` ``t``, from a TRUNCATE) carries no value, no ROWID and is not a full
    image: every version of the table ordered before it is gone (``reset_marker``).

    A frozen ``msgspec.Struct`` (one per change row: ~20x cheaper to build than a frozen
    dataclass); copy with ``msgspec.structs.replace``.
    """

    op: Operation
    owner: str
    table: str
    scn: int
    commit_scn: int
    redo_pos: int
    rs_id: str | None
    ssn: int | None
    xid: str | None
    row_id: str | None
    commit_ts: datetime | None
    values: Mapping[str, object]
    full_image: bool
