"""Transaction assembly: raw LogMiner rows -> CSF chains joined -> committed transactions.

Data flow: ``source`` yields :class:`LogMinerRow` in mining order ->
:class:`ContinuationJoiner` joins CSF chains -> :class:`TransactionBuffer` buffers per XID
(spilling to disk past its memory budget) and returns each :class:`CommittedTransaction` at
its COMMIT, in commit order. See ``docs/transactions.md``.
"""

from extractor.assemble.csf import ContinuationJoiner, join_continuations
from extractor.assemble.records import (
    BufferMetrics,
    CommittedTransaction,
    OpenTransactionSummary,
)
from extractor.assemble.transaction_buffer import TransactionBuffer
from extractor.errors import (
    AssemblyError,
    BrokenContinuationError,
    IncompleteContinuationError,
    RedoGapError,
    SpillError,
)
from extractor.redo_position import CommitPosition

__all__ = [
    "AssemblyError",
    "BrokenContinuationError",
    "BufferMetrics",
    "CommitPosition",
    "CommittedTransaction",
    "ContinuationJoiner",
    "IncompleteContinuationError",
    "OpenTransactionSummary",
    "RedoGapError",
    "SpillError",
    "TransactionBuffer",
    "join_continuations",
]
