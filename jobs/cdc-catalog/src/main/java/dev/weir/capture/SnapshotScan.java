package dev.weir.capture;

import static io.debezium.connector.postgresql.Utils.refreshSchema;

import io.debezium.connector.postgresql.PostgresConnectorConfig;
import io.debezium.connector.postgresql.PostgresEventDispatcher;
import io.debezium.connector.postgresql.PostgresOffsetContext;
import io.debezium.connector.postgresql.PostgresPartition;
import io.debezium.connector.postgresql.PostgresSchema;
import io.debezium.connector.postgresql.connection.PostgresConnection;
import io.debezium.pipeline.EventDispatcher;
import io.debezium.pipeline.source.spi.SnapshotProgressListener;
import io.debezium.pipeline.spi.SnapshotResult;
import io.debezium.relational.Column;
import io.debezium.relational.SnapshotChangeRecordEmitter;
import io.debezium.relational.Table;
import io.debezium.relational.TableId;
import io.debezium.util.Clock;
import io.debezium.util.ColumnUtils;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import org.apache.flink.cdc.connectors.base.source.meta.split.SnapshotSplit;
import org.apache.flink.cdc.connectors.postgres.source.fetch.PostgresScanFetchTask;
import org.apache.flink.cdc.connectors.postgres.source.fetch.PostgresSourceFetchTaskContext;
import org.apache.flink.cdc.connectors.postgres.source.fetch.StoppableChangeEventSourceContext;
import org.apache.flink.cdc.connectors.postgres.source.utils.PostgresQueryUtils;
import org.apache.flink.util.FlinkRuntimeException;
import org.postgresql.PGStatement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Flink CDC's read of a snapshot split (watermarks, backfill, slot: all Flink CDC's), with its rows
 * read by {@link SnapshotValues} rather than {@code ResultSet.getObject}: a numeric {@code NaN} or
 * {@code Infinity} no longer fails the snapshot, and times, BC dates and timestamps arrive as the
 * change stream carries them. The select and the events are Flink CDC's ({@code
 * PostgresScanFetchTask.PostgresSnapshotSplitReadTask}).
 */
final class SnapshotScan extends PostgresScanFetchTask {

  private static final Logger LOG = LoggerFactory.getLogger(SnapshotScan.class);

  SnapshotScan(SnapshotSplit split) {
    super(split);
  }

  @Override
  protected void executeDataSnapshot(Context context) throws Exception {
    PostgresSourceFetchTaskContext ctx = (PostgresSourceFetchTaskContext) context;
    SplitRead read =
        new SplitRead(
            ctx.getConnection(),
            ctx.getDbzConnectorConfig(),
            ctx.getDatabaseSchema(),
            ctx.getOffsetContext(),
            ctx.getEventDispatcher(),
            ctx.getSnapshotChangeEventSourceMetrics(),
            snapshotSplit);
    SnapshotResult<PostgresOffsetContext> result =
        read.execute(
            new StoppableChangeEventSourceContext(), ctx.getPartition(), ctx.getOffsetContext());
    if (!result.isCompletedOrSkipped()) {
      taskRunning = false;
      throw new IllegalStateException("Read snapshot for postgres split " + result + " fail");
    }
  }

  /** Flink CDC's split read, but for how each column of a row is read. */
  private static final class SplitRead extends PostgresSnapshotSplitReadTask {
    private final PostgresConnection connection;
    private final PostgresConnectorConfig connectorConfig;
    private final PostgresSchema schema;
    private final PostgresOffsetContext offset;
    private final PostgresEventDispatcher<TableId> dispatcher;
    private final SnapshotSplit split;
    private final Clock clock = Clock.SYSTEM;

    SplitRead(
        PostgresConnection connection,
        PostgresConnectorConfig connectorConfig,
        PostgresSchema schema,
        PostgresOffsetContext offset,
        PostgresEventDispatcher<TableId> dispatcher,
        SnapshotProgressListener<PostgresPartition> progress,
        SnapshotSplit split) {
      super(connection, connectorConfig, schema, offset, dispatcher, progress, split);
      this.connection = connection;
      this.connectorConfig = connectorConfig;
      this.schema = schema;
      this.offset = offset;
      this.dispatcher = dispatcher;
      this.split = split;
    }

    @Override
    protected SnapshotResult<PostgresOffsetContext> doExecute(
        ChangeEventSourceContext context,
        PostgresOffsetContext previousOffset,
        SnapshotContext<PostgresPartition, PostgresOffsetContext> snapshotContext,
        SnapshottingTask snapshottingTask)
        throws Exception {
      snapshotContext.offset = offset;
      refreshSchema(schema, connection, true);
      EventDispatcher.SnapshotReceiver<PostgresPartition> receiver =
          dispatcher.getSnapshotChangeEventReceiver();
      Table table = Objects.requireNonNull(schema.tableFor(split.getTableId()));
      long rows = readRows(snapshotContext, receiver, table);
      receiver.completeSnapshot();
      LOG.info("Read {} rows of split '{}' of table {}", rows, split.splitId(), table.id());
      return SnapshotResult.completed(snapshotContext.offset);
    }

    private long readRows(
        SnapshotContext<PostgresPartition, PostgresOffsetContext> snapshotContext,
        EventDispatcher.SnapshotReceiver<PostgresPartition> receiver,
        Table table)
        throws InterruptedException {
      List<String> uuidKeys =
          split.getSplitKeyType().getFieldNames().stream()
              .filter(field -> table.columnWithName(field).typeName().equals("uuid"))
              .toList();
      String select =
          PostgresQueryUtils.buildSplitScanQuery(
              split.getTableId(),
              split.getSplitKeyType(),
              split.getSplitStart() == null,
              split.getSplitEnd() == null,
              uuidKeys);
      try (PreparedStatement statement =
          PostgresQueryUtils.readTableSplitDataStatement(
              connection,
              select,
              split.getSplitStart() == null,
              split.getSplitEnd() == null,
              split.getSplitStart(),
              split.getSplitEnd(),
              split.getSplitKeyType().getFieldCount(),
              connectorConfig.getSnapshotFetchSize())) {
        // Never server-prepared: each value then comes as PostgreSQL's text. A statement pgjdbc
        // prepares (the splits' select, run again and again) gets numerics, dates and times in
        // binary, where pgjdbc cannot read a numeric Infinity or a time of 24:00:00.
        statement.unwrap(PGStatement.class).setPrepareThreshold(0);
        try (ResultSet rs = statement.executeQuery()) {
          ColumnUtils.ColumnArray columns = ColumnUtils.toArray(rs, table);
          long rows = 0;
          while (rs.next()) {
            rows++;
            Object[] row = new Object[columns.getGreatestColumnPosition()];
            for (int i = 0; i < columns.getColumns().length; i++) {
              Column column = columns.getColumns()[i];
              row[column.position() - 1] =
                  SnapshotValues.read(rs, i + 1, column, table, connection, schema);
            }
            snapshotContext.offset.event(table.id(), clock.currentTime());
            dispatcher.dispatchSnapshotEvent(
                snapshotContext.partition,
                table.id(),
                new SnapshotChangeRecordEmitter<>(
                    snapshotContext.partition, snapshotContext.offset, row, clock),
                receiver);
          }
          return rows;
        }
      } catch (SQLException e) {
        throw new FlinkRuntimeException("Snapshotting of table " + table.id() + " failed", e);
      }
    }
  }
}
