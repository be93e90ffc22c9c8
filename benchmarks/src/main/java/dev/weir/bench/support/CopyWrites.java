package dev.weir.bench.support;

import java.util.List;

/**
 * Price-only changes written to a copy: WAL bytes, rows updated, TOAST tuples written, and the WAL
 * by record type.
 */
public record CopyWrites(
    String name,
    long changes,
    long walBytes,
    long rowsUpdated,
    long toast,
    List<WalRecords> records) {}
