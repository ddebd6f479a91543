"""The redo log catalog: online groups, log switches, archived copies, purging.

A log covers SCNs from FIRST_CHANGE# up to, not including, NEXT_CHANGE#. The newest
``online_groups`` sequences are online (CURRENT, then ACTIVE, then INACTIVE); every
switched log also has an archived copy until it is purged. Mining an SCN range fails with
ORA-01291 when a log it needs is neither online nor available as an archived copy.

One catalog per redo thread (a RAC instance writes its own thread: its own sequences, online
groups and RS_IDs). With ``archive_destinations`` = 2 every switched log is archived to two
local destinations (DEST_ID 1 and 2), and each copy can be deleted on its own. With
``online_members`` = 2 every online group is multiplexed: a member in each of two
directories (V$LOGFILE lists both).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from extractor.sim.oracle_errors import raise_oracle_error


@dataclass(frozen=True, slots=True)
class RedoLogFile:
    """One row of V$ARCHIVED_LOG (``is_online`` False) or V$LOG + V$LOGFILE (True)."""

    thread: int
    sequence: int
    first_change: int
    next_change: int | None  # None for the CURRENT online log
    name: str
    archived: bool
    available: bool
    status: str  # online: CURRENT | ACTIVE | INACTIVE; archived: A (available) | D (deleted)
    is_online: bool
    dest_id: int = 1  # V$ARCHIVED_LOG.DEST_ID of an archived copy
    # an online log's V$LOGFILE.MEMBER paths, ``name`` first (empty for an archived copy)
    members: tuple[str, ...] = ()
    # V$ARCHIVED_LOG.RESETLOGS_CHANGE# and RESETLOGS_ID: the incarnation whose redo it holds
    resetlogs_change: int = 1
    resetlogs_id: int = 1


@dataclass(slots=True)
class _Sequence:
    sequence: int
    first_change: int
    next_change: int | None = None
    deleted: set[int] = field(default_factory=set)  # DEST_IDs whose copy was deleted


class RedoLogCatalog:
    """Log sequences of one redo thread and the redo position (RS_ID) inside the current one."""

    BLOCK_BYTES = 512
    # a catalog saved before incarnations existed: the first one
    resetlogs_change = 1
    resetlogs_id = 1
    ARCHIVE_DIRECTORIES = ("/u01/app/oracle/fra/{db}/archivelog", "/u02/app/oracle/arch/{db}")
    # where each member of an online group is (a multiplexed group has one per directory)
    ONLINE_DIRECTORIES = ("/u01/app/oracle/oradata/{db}", "/u02/app/oracle/oradata/{db}")
    MEMBER_SUFFIXES = ("", "b")  # redo01.log, redo01b.log

    def __init__(
        self,
        first_scn: int,
        *,
        online_groups: int = 3,
        database_name: str,
        thread: int = 1,
        archive_destinations: int = 1,
        resetlogs_change: int = 1,
        resetlogs_id: int = 1,
        online_members: int = 1,
    ) -> None:
        if not 1 <= archive_destinations <= len(self.ARCHIVE_DIRECTORIES):
            raise ValueError(f"archive_destinations must be 1..{len(self.ARCHIVE_DIRECTORIES)}")
        if not 1 <= online_members <= len(self.ONLINE_DIRECTORIES):
            raise ValueError(f"online_members must be 1..{len(self.ONLINE_DIRECTORIES)}")
        self._online_groups = online_groups
        self._online_members = online_members
        self._database_name = database_name
        self.thread = thread
        self.resetlogs_change = resetlogs_change
        self.resetlogs_id = resetlogs_id
        self._destinations = range(1, archive_destinations + 1)
        self.online_dropped = False  # a disabled thread's groups were dropped
        self._sequences: list[_Sequence] = [_Sequence(1, first_scn)]
        self._byte_cursor = 0
        self.records_in_current = 0

    @property
    def current_sequence(self) -> int:
        return self._sequences[-1].sequence

    def next_rs_id(self, record_bytes: int) -> str:
        """Allocate a redo record in the current log; its padded RS_ID text."""
        position = self._byte_cursor
        self._byte_cursor += max(16, (record_bytes + 15) // 16 * 16)
        self.records_in_current += 1
        block, offset = divmod(position, self.BLOCK_BYTES)
        return f" 0x{self.current_sequence:06x}.{block + 2:08x}.{offset:04x} "

    def switch(self, next_first_change: int) -> None:
        """Close the current log at ``next_first_change`` and open the next sequence."""
        current = self._sequences[-1]
        current.next_change = next_first_change
        self._sequences.append(_Sequence(current.sequence + 1, next_first_change))
        self._byte_cursor = 0
        self.records_in_current = 0

    def purge_archived(self, below_sequence: int) -> None:
        """Delete every archived copy of the sequences below ``below_sequence``."""
        for seq in self._sequences[:-1]:
            if seq.sequence < below_sequence:
                seq.deleted.update(self._destinations)

    def delete_archived_copy(self, sequence: int, dest_id: int) -> None:
        """Delete one archived copy (V$ARCHIVED_LOG.STATUS 'D' for that DEST_ID only)."""
        for seq in self._sequences[:-1]:
            if seq.sequence == sequence:
                seq.deleted.add(dest_id)

    def files(self) -> list[RedoLogFile]:
        archived = [
            self._archived_file(s, dest_id)
            for s in self._sequences[:-1]
            for dest_id in self._destinations
        ]
        return archived + self._online_files()

    def check_minable(self, start_scn: int, end_scn: int) -> None:
        """Raise ORA-01291 when a log covering part of [start_scn, end_scn] is gone."""
        online = {s.sequence for s in self._online_sequences()}
        for seq in self._sequences:
            ends_before = seq.next_change is not None and seq.next_change <= start_scn
            if ends_before or seq.first_change > end_scn:
                continue
            if self._all_copies_deleted(seq) and seq.sequence not in online:
                raise_oracle_error(
                    1291,
                    f"missing log file (thread {self.thread} sequence {seq.sequence}, SCN "
                    f"{seq.first_change}..{seq.next_change})",
                )

    def _all_copies_deleted(self, seq: _Sequence) -> bool:
        return all(dest_id in seq.deleted for dest_id in self._destinations)

    def _archived_file(self, seq: _Sequence, dest_id: int) -> RedoLogFile:
        directory = self.ARCHIVE_DIRECTORIES[dest_id - 1].format(db=self._database_name)
        deleted = dest_id in seq.deleted
        return RedoLogFile(
            thread=self.thread,
            sequence=seq.sequence,
            first_change=seq.first_change,
            next_change=seq.next_change,
            # LOG_ARCHIVE_FORMAT %t_%s_%r: thread, sequence, RESETLOGS_ID of the incarnation
            name=f"{directory}/{self.thread}_{seq.sequence}_{self.resetlogs_id}.arc",
            archived=True,
            available=not deleted,
            status="D" if deleted else "A",
            is_online=False,
            dest_id=dest_id,
            resetlogs_change=self.resetlogs_change,
            resetlogs_id=self.resetlogs_id,
        )

    def _online_sequences(self) -> list[_Sequence]:
        return [] if self.online_dropped else self._sequences[-self._online_groups :]

    def _online_files(self) -> list[RedoLogFile]:
        online = self._online_sequences()
        files = []
        for age, seq in enumerate(reversed(online)):
            status = "CURRENT" if age == 0 else "ACTIVE" if age == 1 else "INACTIVE"
            group = (
                (self.thread - 1) * self._online_groups
                + (seq.sequence - 1) % self._online_groups
                + 1
            )
            count = self._online_members
            members = tuple(
                f"{directory.format(db=self._database_name)}/redo{group:02d}{suffix}.log"
                for directory, suffix in zip(
                    self.ONLINE_DIRECTORIES[:count], self.MEMBER_SUFFIXES[:count], strict=True
                )
            )
            files.append(
                RedoLogFile(
                    thread=self.thread,
                    sequence=seq.sequence,
                    first_change=seq.first_change,
                    next_change=seq.next_change,
                    name=members[0],
                    members=members,
                    archived=age > 0,
                    available=True,
                    status=status,
                    is_online=True,
                    resetlogs_change=self.resetlogs_change,
                    resetlogs_id=self.resetlogs_id,
                )
            )
        return list(reversed(files))
