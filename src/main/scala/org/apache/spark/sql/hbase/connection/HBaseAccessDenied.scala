// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connection

import org.apache.spark.sql.hbase.common.{Causes, HBaseSQLException}

/**
 * HBase's AccessController refusing the user an action (read, write, create, ...) on a table or
 * namespace, said as such: HBase's own words (user, scope, action) and what to do, without the
 * RPC client's stack of wrappers.
 */
object HBaseAccessDenied {

  /** HBase's message, if `e`'s causes hold its AccessDeniedException (rebuilt from the remote one, or wrapped by name). */
  def message(e: Throwable): Option[String] = denial(e).map(_._2)

  /** The cause that says it, and HBase's message. */
  private def denial(e: Throwable): Option[(Throwable, String)] = Causes.of(e).collectFirst {
    case c if c.getClass.getName == ClassName => c -> Causes.rootMessage(c)
    case c if Option(c.getMessage).exists(_.startsWith(ClassName + ": ")) => c -> c.getMessage.linesIterator.next()
  }.map { case (c, m) => c -> m.stripPrefix(ClassName + ": ") }

  /** `doing` says what was denied when HBase's message may not (its read errors leave out the namespace). */
  def error(message: String, cause: Throwable, doing: Option[String] = None): HBaseSQLException =
    new HBaseSQLException(s"HBase denied access${doing.fold("")(" " + _)}: $message. $Advice", Some(cause))

  /**
   * A statement that shows a table's definition (DESCRIBE, SHOW CREATE TABLE) refused to a user
   * HBase does not let read the table's HBase table: as SHOW TABLES does not list it, nothing
   * shows its columns.
   */
  def unreadable(statement: String, table: String, hbaseTable: String, user: String): HBaseSQLException =
    new HBaseSQLException(
      s"HBase denied access: $statement of table '$table' shows it only to users HBase lets read HBase table " +
        s"'$hbaseTable', and user '$user' may not. $Advice"
    )

  private val Advice = "An HBase administrator grants rights with HBase's grant command (reading and writing a " +
    "table, creating tables in a namespace, and reading and writing our catalog spark_hbase_sql:catalog); see " +
    "'Kerberos' in docs/deployment.md."

  /**
   * The denial itself becomes the cause: a failed batch of writes around it holds the rows, which
   * cannot travel from an executor to the driver, and the error would arrive without its message.
   */
  def translate(doing: Option[String] = None): PartialFunction[Throwable, Nothing] = {
    case e: Exception if denial(e).isDefined =>
      val (cause, message) = denial(e).get
      throw error(message, cause, doing)
  }

  private val ClassName = "org.apache.hadoop.hbase.security.AccessDeniedException"
}
