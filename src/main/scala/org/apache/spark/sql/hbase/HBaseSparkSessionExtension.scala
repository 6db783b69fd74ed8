// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase

import org.apache.spark.sql.SparkSessionExtensions
import org.apache.spark.sql.execution.ColumnarRule
import org.apache.spark.sql.hbase.parser.HBaseSqlParser
import org.apache.spark.sql.hbase.analysis.{
  ResolveHBaseCatalogStatements, ResolveHBaseRelations, ResolveIndexHints, ResolveIndexStatements,
  ResolveRowLevelStatements
}
import org.apache.spark.sql.hbase.physical.{
  AggregatesOnTheDriver, HBaseStrategy, LimitsInIndexOrder, LimitsInKeyOrder, MergeJoinsByKey, PushJoinKeys
}
import org.apache.spark.sql.hbase.optimizer.{
  AggregatesBelowKeyedJoins, HBaseLimitPushdown, HBaseTopNPushdown, SmallSortsInOneTask, UnqualifiedHBaseColumns
}
import org.apache.spark.sql.hbase.changes.HBaseChangesFunction
import org.apache.spark.sql.hbase.common.HBaseSQLConf
import org.apache.spark.sql.hbase.connection.{SessionEnds, StatementIdentity}

/**
 * The entry point: `spark.sql.extensions=org.apache.spark.sql.hbase.HBaseSparkSessionExtension`.
 * It wires the pipeline parser -> catalog (resolution) -> optimizer -> planner into a session.
 */
class HBaseSparkSessionExtension extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    ThriftServerClassPath.check()
    HBaseSQLConf.register()
    extensions.injectParser((_, delegate) => new HBaseSqlParser(delegate))
    extensions.injectResolutionRule { session =>
      // The server's log says at start whom HBase sees as the caller (its settings are Spark's, from its start).
      val identity = session.sparkContext.getConf.get(HBaseSQLConf.Identity.key, "process")
      StatementIdentity.announce(
        identity,
        session.sparkContext.getConf.getBoolean(HBaseSQLConf.IdentityTrustsConnectUser.key, false)
      )
      // Each user's tokens and connections go when their last session does.
      if (identity.equalsIgnoreCase("statement")) SessionEnds.listen(session.sparkContext)
      ResolveHBaseRelations(session)
    }
    extensions.injectResolutionRule(session => ResolveIndexStatements(session))
    extensions.injectResolutionRule(_ => ResolveIndexHints)
    extensions.injectResolutionRule(_ => ResolveRowLevelStatements)
    extensions.injectResolutionRule(session => ResolveHBaseCatalogStatements(session))
    extensions.injectTableFunction((
      HBaseChangesFunction.identifier,
      HBaseChangesFunction.info,
      HBaseChangesFunction(_)
    ))
    // First: the rules after it compare columns as the relation names them.
    extensions.injectOptimizerRule(_ => UnqualifiedHBaseColumns)
    extensions.injectOptimizerRule(_ => HBaseLimitPushdown)
    extensions.injectOptimizerRule(_ => HBaseTopNPushdown)
    // Once filters are pushed and columns pruned.
    extensions.injectPreCBORule(_ => AggregatesBelowKeyedJoins)
    extensions.injectPlannerStrategy(session => HBaseStrategy(session))
    // Adaptive execution's re-planning, once stages have run and their sizes are known.
    extensions.injectRuntimeOptimizerRule(_ => SmallSortsInOneTask)
    // After Spark places its exchanges: among the rules preparing adaptive query stages, and
    // without adaptive execution, before the columnar transitions.
    extensions.injectQueryStagePrepRule(_ => MergeJoinsByKey)
    extensions.injectQueryStagePrepRule(_ => PushJoinKeys)
    extensions.injectQueryStagePrepRule(_ => LimitsInKeyOrder)
    extensions.injectQueryStagePrepRule(_ => LimitsInIndexOrder)
    extensions.injectQueryStagePrepRule(_ => AggregatesOnTheDriver)
    extensions.injectColumnar(_ =>
      new ColumnarRule {
        override def preColumnarTransitions =
          plan => AggregatesOnTheDriver(LimitsInIndexOrder(LimitsInKeyOrder(PushJoinKeys(MergeJoinsByKey(plan)))))
      }
    )
  }
}
