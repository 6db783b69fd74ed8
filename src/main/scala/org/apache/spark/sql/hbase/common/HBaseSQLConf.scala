// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.common

import org.apache.spark.internal.config.ConfigEntry
import org.apache.spark.sql.hbase.server.ServerJar
import org.apache.spark.sql.internal.SQLConf

/**
 * Settings of spark-hbase-sql, registered with Spark so that `SET -v` lists them with their
 * defaults. HBase client settings are separate: `spark.hbase.X` becomes the HBase setting `hbase.X`.
 */
object HBaseSQLConf {
  val CatalogTable: ConfigEntry[String] = SQLConf.buildConf("spark.sql.hbase.catalog.table")
    .doc("HBase table (namespace:name) that holds the SQL table definitions; created on first use.")
    .stringConf
    .createWithDefault("spark_hbase_sql:catalog")

  val IndexTable: ConfigEntry[String] = SQLConf.buildConf("spark.sql.hbase.index.table")
    .doc("HBase table (namespace:name) that holds range index statistics and write marks; created on first use.")
    .stringConf
    .createWithDefault("spark_hbase_sql:range_index")

  val IndexEnabled: ConfigEntry[Boolean] = SQLConf.buildConf("spark.sql.hbase.index.enabled")
    .doc("Skip the key-range chunks whose range index statistics show that no row of theirs can match.")
    .booleanConf
    .createWithDefault(true)

  val GlobalIndexEnabled: ConfigEntry[Boolean] = SQLConf.buildConf("spark.sql.hbase.globalIndex.enabled")
    .doc("Read a ready global index to find the rows a WHERE clause on its columns may match, where the key ranges " +
      "alone would scan.")
    .booleanConf
    .createWithDefault(true)

  val GlobalIndexCovering: ConfigEntry[Boolean] = SQLConf.buildConf("spark.sql.hbase.globalIndex.covering")
    .doc("A scan through a global index that holds every column it reads answers from the index rows it can trust, " +
      "and reads only the other data rows.")
    .booleanConf
    .createWithDefault(true)

  val GlobalIndexMaxRows: ConfigEntry[Int] = SQLConf.buildConf("spark.sql.hbase.globalIndex.maxRows")
    .doc("The most data rows a scan reads through a global index, by Gets or from a covering index's rows; when " +
      "the index names more, the scan reads its key ranges as it would without the index.")
    .intConf
    .checkValue(_ > 0, "must be positive")
    .createWithDefault(100000)

  val GlobalIndexRecentWrites: ConfigEntry[Long] = SQLConf.buildConf("spark.sql.hbase.globalIndex.recentWritesMillis")
    .doc("A read through a global index reads from the data every row whose index rows changed less than this " +
      "long before the read began, in milliseconds: the index is not one snapshot across its regions, and such a " +
      "row may have moved between them during the read. It must cover the clocks' skew between the driver and the " +
      "region servers and the 60 s in which the region servers finish an index write.")
    .longConf
    .checkValue(_ >= 0, "must not be negative")
    .createWithDefault(120000L)

  val GlobalIndexServerAggregates: ConfigEntry[Boolean] =
    SQLConf.buildConf("spark.sql.hbase.globalIndex.serverAggregates")
      .doc("An aggregate collected on the driver over a read through a covering global index has the index's " +
        "region servers aggregate the rows it vouches for (VERIFIED), where they compute the whole of it as Spark " +
        "would, and reads the others from the data table. Off, the index's rows come to the driver, which " +
        "aggregates them there.")
      .booleanConf
      .createWithDefault(true)

  val GlobalIndexReadPartBytes: ConfigEntry[Long] =
    SQLConf.buildConf("spark.sql.hbase.globalIndex.readPartBytes")
      .doc("A read through a global index reads the ranges of one index region by one scan unless HBase's sizes " +
        "say they hold at least twice this many bytes; then it cuts them into parts of about this many bytes, at " +
        "most 4 a region, and reads the parts at once. 0 reads each region's ranges by one scan.")
      .longConf
      .checkValue(_ >= 0, "must not be negative")
      .createWithDefault(32768L)

  val IndexMarkLease: ConfigEntry[Long] = SQLConf.buildConf("spark.sql.hbase.index.markLeaseMillis")
    .doc(
      "How long one write mark covers writes to a region, in milliseconds; CREATE INDEX and ANALYZE TABLE give it " +
        "to the table's write-marking coprocessor. Chunks built less than this long after an outside write are not trusted."
    )
    .longConf
    .checkValue(_ > 0, "must be positive")
    .createWithDefault(300000L)

  val IndexClockSkew: ConfigEntry[Long] = SQLConf.buildConf("spark.sql.hbase.index.clockSkewMillis")
    .doc("How far apart the region servers' clocks may be, in milliseconds (HBase refuses more than " +
      "hbase.master.maxclockskew, 30 s by default); write marks are judged with this much to spare.")
    .longConf
    .checkValue(_ >= 0, "must not be negative")
    .createWithDefault(60000L)

  val ScannerFetchSize: ConfigEntry[Int] = SQLConf.buildConf("spark.sql.hbase.scanner.fetchsize")
    .doc("Rows an HBase scanner fetches per round trip (scanner caching).")
    .intConf
    .checkValue(_ > 0, "must be positive")
    .createWithDefault(1000)

  val PartitionExpiration: ConfigEntry[Long] = SQLConf.buildConf("spark.sql.hbase.partition.expiration")
    .doc("Seconds a table's cached region locations stay valid before they are looked up again; stale " +
      "ones cost balance, never rows.")
    .longConf
    .checkValue(_ >= 0, "must not be negative")
    .createWithDefault(600L)

  val ScanTaskMaxBytes: ConfigEntry[Long] = SQLConf.buildConf("spark.sql.hbase.scan.taskMaxBytes")
    .doc("A scan small for its regions reads several consecutive regions in each Spark task, one " +
      "after another: each task reads at most this many estimated bytes (the table's size over its " +
      "regions, as HBase reports it), and there are as many tasks as Spark's default parallelism " +
      "unless each would read under 8 MB. Regions larger than this keep a task each. EXPLAIN shows " +
      "the tasks. 0 reads one region per task.")
    .bytesConf(org.apache.spark.network.util.ByteUnit.BYTE)
    .checkValue(_ >= 0, "must not be negative")
    .createWithDefault(128L * 1024 * 1024)

  val CustomFilter: ConfigEntry[Boolean] = SQLConf.buildConf("spark.sql.hbase.customfilter")
    .doc("Use the server-side skip-scan filter when the region servers have the server jar.")
    .booleanConf
    .createWithDefault(true)

  val Coprocessor: ConfigEntry[Boolean] = SQLConf.buildConf("spark.sql.hbase.coprocessor")
    .doc("Compute partial aggregates (COUNT, SUM, MIN, MAX, AVG, GROUP BY) in the region servers " +
      "when they run the server jar's coprocessor; Spark merges the partial groups. Also whether " +
      "CREATE TABLE adds the coprocessor to the HBase tables it makes: a region server that cannot " +
      "load a table's coprocessor aborts, so keep it off until every region server has the jar.")
    .booleanConf
    .createWithDefault(true)

  val CreateLayout: ConfigEntry[String] = SQLConf.buildConf("spark.sql.hbase.create.layout")
    .doc("The layout CREATE TABLE gives a table whose HBase table it makes, when the statement names none: " +
      "CELLS (a cell a column) or PACKED (a family's columns in one cell a row; CELLS for a table it cannot " +
      "hold: StringFormat values, or no value column). A table mapped over an existing HBase table reads its " +
      "rows as they are stored (docs/statements.md, 'Which layout a table gets').")
    .stringConf
    .transform(_.toUpperCase(java.util.Locale.ROOT))
    .checkValues(Set("PACKED", "CELLS"))
    .createWithDefault("PACKED")

  val PackedUpdateMerge: ConfigEntry[Boolean] = SQLConf.buildConf("spark.sql.hbase.update.mergeInRegionServers")
    .doc("UPDATE of a LAYOUT PACKED table has the region servers merge the new values into each row's " +
      "packed cells, under the row's lock, where the table has the server jar's merge observer (CREATE " +
      "TABLE adds it). Otherwise, or when off, each row is read, merged in Spark and written only if " +
      "unchanged meanwhile, and read and merged again if not.")
    .booleanConf
    .createWithDefault(true)

  val PackedUpdateRegionBatches: ConfigEntry[Boolean] = SQLConf.buildConf("spark.sql.hbase.update.regionBatches")
    .doc("An UPDATE of a LAYOUT PACKED table merged in the region servers sends the rows of one region " +
      "(up to 500) in one call of HBase's MultiRowMutationEndpoint where the table has it (CREATE TABLE " +
      "adds it with the merge observer): the region merges them in one atomic batch, holding all their " +
      "row locks, reading them with one scanner and writing them with one write to the WAL. When off, or " +
      "without the endpoint, one append per row.")
    .booleanConf
    .createWithDefault(true)

  val CoprocessorMaxGroups: ConfigEntry[Int] = SQLConf.buildConf("spark.sql.hbase.coprocessor.maxGroups")
    .doc("Most partial groups a region server holds for one region; at this many it sends them " +
      "to Spark and starts again, and Spark's final aggregation merges the repeats.")
    .intConf
    .checkValue(_ > 0, "must be positive")
    .createWithDefault(100000)

  val WireVersion: ConfigEntry[Int] = SQLConf.buildConf("spark.sql.hbase.wireVersion")
    .doc("The newest wire version of the server jar's messages this application writes. It writes " +
      "the newest version both it and the region servers read, as the region servers say; a lower " +
      "value pins it lower, for example while region servers are upgraded one by one.")
    .intConf
    .checkValue(
      v => v >= ServerJar.OLDEST_WIRE_VERSION && v <= ServerJar.WIRE_VERSION,
      s"must be a wire version this build writes, ${ServerJar.OLDEST_WIRE_VERSION} to ${ServerJar.WIRE_VERSION}"
    )
    .createWithDefault(ServerJar.WIRE_VERSION)

  val CoprocessorMaxGroupBytes: ConfigEntry[Long] = SQLConf.buildConf("spark.sql.hbase.coprocessor.maxGroupBytes")
    .doc("Most memory, in estimated bytes, that a region server holds in partial groups for one " +
      "region of a query; at this much it sends them to Spark and starts again. 0 leaves only the " +
      "region server's own budget (spark.hbase.server.aggregation.memory.share of its heap, shared by all queries). " +
      "Batches sent early count in the scan metric memoryFlushes.")
    .bytesConf(org.apache.spark.network.util.ByteUnit.BYTE)
    .checkValue(_ >= 0, "must not be negative")
    .createWithDefault(0L)

  val CoprocessorSingleTaskMaxRegions: ConfigEntry[Int] =
    SQLConf.buildConf("spark.sql.hbase.coprocessor.singleTaskMaxRegions")
      .doc("An aggregate without GROUP BY that the region servers compute, over at most this many " +
        "regions, runs as one Spark task that asks its regions in parallel (16 at a time per executor): " +
        "one partial row per region needs no shuffle before the final aggregation. 0 runs one task per region.")
      .intConf
      .checkValue(_ >= 0, "must not be negative")
      .createWithDefault(64)

  val Pushdown: ConfigEntry[Boolean] = SQLConf.buildConf("spark.sql.hbase.pushdown")
    .doc("Turn WHERE clauses on the row key into scan ranges and region pruning. Off reads every row.")
    .booleanConf
    .createWithDefault(true)

  val MaxKeyRanges: ConfigEntry[Int] = SQLConf.buildConf("spark.sql.hbase.maxKeyRanges")
    .doc("Most critical key ranges per key column; beyond it (a huge IN list, a large cross " +
      "product) the planner scans one coarser range and leaves the rest to the filter.")
    .intConf
    .checkValue(_ > 0, "must be positive")
    .createWithDefault(10000)

  val DriverReadMaxKeyRanges: ConfigEntry[Int] = SQLConf.buildConf("spark.sql.hbase.driverRead.maxKeyRanges")
    .doc("A query that collects only point or prefix lookups (every key range fixes the leading " +
      "key column), at most this many, or that reads a single region, is read on the driver " +
      "without a Spark job. 0 always runs a job.")
    .intConf
    .checkValue(_ >= 0, "must not be negative")
    .createWithDefault(1000)

  val MergeJoinByKey: ConfigEntry[Boolean] = SQLConf.buildConf("spark.sql.hbase.join.mergeByKey")
    .doc("A sort-merge join of two HBase tables on their leading key columns reads both in the same " +
      "ranges of the key's values, each in key order, instead of shuffling and sorting them.")
    .booleanConf
    .createWithDefault(true)

  val AggregateBelowMergedJoin: ConfigEntry[Boolean] = SQLConf.buildConf("spark.sql.hbase.join.aggregateBelow")
    .doc("A GROUP BY over an inner join of two HBase tables on their leading key columns aggregates " +
      "the rows of the table that may hold many per key value before the join, in the region servers, " +
      "when the query groups by the other table's columns and its aggregates split exactly (count, sum, " +
      "min, max). Only with spark.sql.hbase.coprocessor and spark.sql.hbase.pushdown on.")
    .booleanConf
    .createWithDefault(true)

  val PushJoinKeysMax: ConfigEntry[Int] = SQLConf.buildConf("spark.sql.hbase.join.pushKeys.maxKeys")
    .doc("A broadcast join on the leading key column of the HBase table it streams reads only the " +
      "rows of the broadcast side's keys, when there are at most this many of them. 0 turns it off.")
    .intConf
    .checkValue(_ >= 0, "must not be negative")
    .createWithDefault(10000)

  val PushMergeKeysMinTableRatio: ConfigEntry[Double] =
    SQLConf.buildConf("spark.sql.hbase.join.pushKeys.mergeSideMinTableRatio")
      .doc("A sort-merge join merged by key pushes the keys of a side that filters by more than key " +
        "ranges into the other side's scan only when the other side's table holds at least this many " +
        "times the bytes of the filtering side's table, since that side is read once more for its keys. " +
        "0 pushes them whatever the sizes.")
      .doubleConf
      .checkValue(_ >= 0, "must not be negative")
      .createWithDefault(2.0)

  val LimitInKeyOrder: ConfigEntry[Boolean] = SQLConf.buildConf("spark.sql.hbase.limit.inKeyOrder")
    .doc("A query's ORDER BY ... LIMIT n over HBase rows that come in that order (by the row key) " +
      "takes the first n rows as they come, instead of a top-n of every region.")
    .booleanConf
    .createWithDefault(true)

  val SortOneTaskMaxBytes: ConfigEntry[Long] = SQLConf.buildConf("spark.sql.hbase.sort.oneTaskMaxBytes")
    .doc("With adaptive execution, an ORDER BY over HBase tables whose input the stages already run " +
      "measured at most this many bytes (a GROUP BY's few groups, say) sorts it in one task, without " +
      "Spark's shuffle into key ranges and the job that samples their bounds. 0 turns it off.")
    .bytesConf(org.apache.spark.network.util.ByteUnit.BYTE)
    .checkValue(_ >= 0, "must not be negative")
    .createWithDefault(10L * 1024 * 1024)

  val TopNPerRegionMaxRows: ConfigEntry[Int] = SQLConf.buildConf("spark.sql.hbase.limit.topNPerRegion.maxRows")
    .doc("A query's ORDER BY of table columns with LIMIT n, at most this many, has each region server " +
      "return only the n rows of each region smallest in that order (with the server jar's coprocessor, " +
      "when the region servers check the whole WHERE clause); Spark's top-n then merges them. 0 turns it off.")
    .intConf
    .checkValue(_ >= 0, "must not be negative")
    .createWithDefault(10000)

  val DriverReadMaxRows: ConfigEntry[Long] = SQLConf.buildConf("spark.sql.hbase.driverRead.maxRows")
    .doc("A query whose range indexes bound the rows it reads to at most this many is also read on " +
      "the driver without a Spark job (when spark.sql.hbase.driverRead.maxKeyRanges is not 0).")
    .longConf
    .checkValue(_ >= 0, "must not be negative")
    .createWithDefault(50000L)

  val DriverReadAggregates: ConfigEntry[Boolean] = SQLConf.buildConf("spark.sql.hbase.driverRead.aggregates")
    .doc("A query's aggregate over a scan that a collect reads on the driver (a lookup, or rows a global index " +
      "names) is computed on the driver too, with a HAVING and an ORDER BY of its groups, without a Spark job.")
    .booleanConf
    .createWithDefault(true)

  val Identity: ConfigEntry[String] = SQLConf.buildStaticConf("spark.sql.hbase.identity")
    .doc("Whom HBase sees as the caller: 'process', the identity this Spark process runs as, for every statement " +
      "of every user; or 'statement', the user each statement runs as when it is another (the Thrift server's " +
      "session user, with hive.server2.enable.doAs=true, or a Spark Connect session's user with " +
      "spark.sql.hbase.identity.trustConnectUser), on the driver and in its tasks, so that HBase's grants " +
      "govern each user. With Kerberos, the driver acts for each user as a proxy user of its login, and their " +
      "tasks on executors use an HBase delegation token of theirs that the driver obtains. Set when the " +
      "application starts; a session cannot change it.")
    .stringConf
    .transform(_.toLowerCase(java.util.Locale.ROOT))
    .checkValues(Set("process", "statement"))
    .createWithDefault("process")

  val IdentityTrustsConnectUser: ConfigEntry[Boolean] =
    SQLConf.buildStaticConf("spark.sql.hbase.identity.trustConnectUser")
      .doc("With spark.sql.hbase.identity=statement on a Spark Connect server: whether a Connect session's " +
        "statements reach HBase as the session's user id. The Connect server does not authenticate that id " +
        "(a client states it), so set this only where something in front of the server does. Without it, " +
        "Connect sessions reach HBase as this process. Set when the application starts; a session cannot " +
        "change it.")
      .booleanConf
      .createWithDefault(false)

  val ConnectionIdleTimeoutMs: ConfigEntry[Long] = SQLConf.buildConf("spark.sql.hbase.connection.idleTimeoutMs")
    .doc("Milliseconds after which a shared HBase connection that no task uses is closed.")
    .longConf
    .checkValue(_ > 0, "must be positive")
    .createWithDefault(60000L)

  val BadRowKeys: ConfigEntry[String] = SQLConf.buildConf("spark.sql.hbase.read.badRowKeys")
    .doc("What a query does with an HBase row whose key is not a key of the table, such as a row " +
      "another tool wrote: 'fail' fails the query with an error naming the table, the row key and " +
      "what is wrong with it; 'skip' leaves the row out and counts it in the scan's metric " +
      "'rows skipped for bad row keys'. Aggregates in the region servers check keys the same way.")
    .stringConf
    .transform(_.toLowerCase(java.util.Locale.ROOT))
    .checkValues(Set("fail", "skip"))
    .createWithDefault("fail")

  val ChangesLag: ConfigEntry[Long] = SQLConf.buildConf("spark.sql.hbase.changes.lagMillis")
    .doc("How far, in milliseconds, a read of changes (a stream from format(\"hbase\"), option changesSince, " +
      "hbase_changes) stays behind the driver's clock: it reads writes timestamped before now minus this. A " +
      "write whose timestamp is at least this much older than the moment it becomes readable (an explicit old " +
      "timestamp, a write in flight longer, a region server clock further behind) can be missed by a stream.")
    .longConf
    .checkValue(_ >= 0, "must not be negative")
    .createWithDefault(2000L)

  /** Loading this object registers the settings above with Spark; calling this loads it. */
  def register(): Unit = ()
}
