// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.commands

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.metadata.TableDefinitionStores
import org.apache.spark.sql.hbase.connector.TableDrops

/**
 * DROP TABLE of an HBase table named by one part, when Spark's own catalog has no table or view
 * of that name: removes only the mapping and its range indexes; the HBase table and its data stay.
 * DROP TABLE ... PURGE deletes the HBase table too, when CREATE TABLE made it.
 */
case class DropHBaseTableCommand(name: String, ifExists: Boolean, purge: Boolean = false) extends LeafRunnableCommand {

  override def run(session: SparkSession): Seq[Row] = {
    if (!TableDrops.drop(session, TableDefinitionStores.of(session), name, purge) && !ifExists) {
      throw new HBaseSQLException(s"DROP TABLE $name: HBase table '$name' does not exist")
    }
    Seq.empty
  }
}
