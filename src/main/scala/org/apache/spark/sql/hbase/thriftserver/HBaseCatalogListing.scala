// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.thriftserver

import java.util.regex.Pattern

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.catalog.Identifier
import org.apache.spark.sql.hbase.connection.HBaseAccessDenied
import org.apache.spark.sql.hbase.connector.{HBaseCatalogTable, HBaseSparkCatalog}
import org.apache.spark.sql.types.{MetadataBuilder, StructType}

/**
 * What a JDBC client's metadata calls see of a session's HBase catalogs: each catalog (`hbase`,
 * and any other `spark.sql.catalog.<name>` of ours) is a schema of that name, whose tables are
 * those its catalog lists for the session's user: the ones HBase lets them read. `schema.table`
 * as listed names the table in SQL. A user HBase does not let read our catalog sees no tables in
 * it; any other failure to reach HBase fails the call with our error.
 */
private[thriftserver] final case class HBaseCatalogListing(session: SparkSession) {

  /** The names of the session's catalogs that are ours, matching `schemaPattern` (SQL LIKE; null for all). */
  def schemas(schemaPattern: String): Seq[String] = {
    val ours = session.conf.getAll.collect {
      case (key, value)
          if key.startsWith(CatalogPrefix) && !key.stripPrefix(CatalogPrefix).contains('.') &&
            value == classOf[HBaseSparkCatalog].getName => key.stripPrefix(CatalogPrefix)
    }
    ours.toSeq.sorted.filter(HBaseCatalogListing.like(schemaPattern).matcher(_).matches())
  }

  /** The tables of catalog `schema` the user may read, matching `tablePattern`. */
  def tables(schema: String, tablePattern: String): Seq[String] = session.withActive {
    val catalog = catalogOf(schema)
    val listed =
      try catalog.listTables(Array(schema)).map(_.name()).toSeq
      catch { case e: Exception if HBaseAccessDenied.message(e).isDefined => Nil }
    listed.sorted.filter(HBaseCatalogListing.like(tablePattern).matcher(_).matches())
  }

  /**
   * A table's columns as SQL sees them, each key column's remark saying which part of the row
   * key it is, before the column's own comment.
   */
  def columns(schema: String, table: String): StructType = session.withActive {
    val definition = catalogOf(schema).loadTable(Identifier.of(Array(schema), table)).asInstanceOf[HBaseCatalogTable]
      .definition
    val keys = definition.keyColumns.map(_.toLowerCase(java.util.Locale.ROOT))
    StructType(definition.schema.fields.map { field =>
      keys.indexOf(field.name.toLowerCase(java.util.Locale.ROOT)) match {
        case -1 => field
        case part =>
          val remark = s"row key, part ${part + 1} of ${keys.size}" + field.getComment().fold("")(c => s": $c")
          field.copy(metadata = new MetadataBuilder().withMetadata(field.metadata).putString("comment", remark).build())
      }
    })
  }

  private def catalogOf(schema: String): HBaseSparkCatalog =
    session.sessionState.catalogManager.catalog(schema).asInstanceOf[HBaseSparkCatalog]

  private val CatalogPrefix = "spark.sql.catalog."
}

private[thriftserver] object HBaseCatalogListing {

  /** A JDBC name pattern (SQL LIKE: `%` any run, `_` one character, `\` escapes), case-insensitive; null or empty for all. */
  def like(pattern: String): Pattern =
    if (pattern == null || pattern.isEmpty) Pattern.compile(".*")
    else {
      val regex = new StringBuilder
      var i = 0
      while (i < pattern.length) {
        pattern.charAt(i) match {
          case '\\' if i + 1 < pattern.length => i += 1; regex ++= Pattern.quote(pattern.charAt(i).toString)
          case '%' => regex ++= ".*"
          case '_' => regex += '.'
          case c => regex ++= Pattern.quote(c.toString)
        }
        i += 1
      }
      Pattern.compile(regex.toString, Pattern.CASE_INSENSITIVE | Pattern.DOTALL)
    }
}
