// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.load

import java.nio.charset.StandardCharsets

import com.univocity.parsers.csv.CsvParser
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path}
import org.apache.hadoop.io.{LongWritable, Text}
import org.apache.hadoop.mapreduce.lib.input.{FileInputFormat, FileSplit}

import org.apache.spark.rdd.{NewHadoopRDD, RDD}
import org.apache.spark.sql.{classic, Column, SparkSession}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.csv.CSVOptions
import org.apache.spark.sql.catalyst.expressions.{BindReferences, Expression, GenericInternalRow, UnsafeProjection}
import org.apache.spark.sql.catalyst.optimizer.ReplaceExpressions
import org.apache.spark.sql.catalyst.plans.logical.Project
import org.apache.spark.sql.functions._
import org.apache.spark.sql.hbase.common.{HBaseSQLException, Utf8}
import org.apache.spark.sql.hbase.metadata.HBaseTableDef
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.apache.spark.util.SerializableConfiguration

/**
 * Delimited text files read as the rows of a table, each with its place in the input (file and
 * byte offset, for messages that give the line). A line is split into fields by the tokenizer of
 * Spark's CSV reader, set up from the same options (quote, escape, nullValue, ...), and the
 * fields are converted to the columns' types by SQL's casts, compiled once per task. A line is a
 * bad row when its field count is not the table's, its key is missing, or a value does not
 * convert. One record per line: a quoted value cannot span lines.
 */
object CsvInput {

  /** Files are told apart in a row's order by the bits above a byte offset's. */
  val OffsetBits = 44

  /** How to read the files: the table, and the statement's delimiter, header flag and CSV options. */
  final case class Format(table: HBaseTableDef, delimiter: String, header: Boolean, csvOptions: Map[String, String]) {
    private val comment: Option[Array[Byte]] =
      csvOptions.collectFirst { case (k, v) if k.equalsIgnoreCase("comment") && v.nonEmpty => Utf8.bytes(v) }

    /** Lines Spark's CSV reader passes over: blank ones (as String.trim sees them), and comments. */
    def skips(line: Text): Boolean = {
      val (bytes, length) = (line.getBytes, line.getLength)
      var i = 0
      while (i < length && (bytes(i) & 0xff) <= ' ') i += 1
      i == length ||
      comment.exists(c => length >= c.length && java.util.Arrays.equals(bytes, 0, c.length, c, 0, c.length))
    }

    /** Spark's CSV options for these files; building them checks the options. */
    def parserOptions(timeZone: String): CSVOptions =
      new CSVOptions(csvOptions + ("sep" -> delimiter), false, timeZone)

    /** What is wrong with a line of `fields` fields when the table has another number of columns. */
    def fieldCountProblem(fields: Int): String = {
      val columns = table.writable.size
      s"$fields field${if (fields == 1) "" else "s"}, ${if (fields > columns) "more" else "fewer"} than the table's $columns columns" +
        (if (table.writeTimes.isEmpty) "" else s" (write times, set by HBase, are not loaded)")
    }
  }

  /**
   * What to do with a bad row: skip it and go on, or throw `failure` of where it is (file and line)
   * and what is wrong with it.
   */
  final case class OnBadRow(skip: Boolean, failure: String => Exception)

  /**
   * The good rows, in table column order, each with its order in the input: the file's index
   * above [[OffsetBits]], the line's byte offset below. A row may be reused for the next one.
   * `shownPath` is the path as the statement gave it, for messages. Rows read and bad rows are
   * counted in `metrics` as they are read.
   */
  def read(
      session: SparkSession,
      path: String,
      shownPath: String,
      format: Format,
      onBadRow: OnBadRow,
      metrics: LoadMetrics
  ): RDD[(Long, InternalRow)] = {
    val table = format.table
    val hadoopConf = new Configuration(session.sparkContext.hadoopConfiguration)
    val files = inputFiles(path, hadoopConf)
    if (files.isEmpty)
      throw new HBaseSQLException(s"LOAD DATA INPATH '$shownPath': no such file or directory, or no files in it")
    if (files.size >= (1 << (63 - OffsetBits)))
      throw new HBaseSQLException(s"LOAD DATA INPATH '$shownPath': too many files (${files.size})")
    val filePaths = files.map(_.getPath.toString)
    val fileIndex = files.map(_.getPath.toUri.getPath).zipWithIndex.toMap
    val timeZone = session.sessionState.conf.sessionLocalTimeZone
    format.parserOptions(timeZone) // rejects bad CSV options here, before any task starts
    val conversions = converters(session, format)
    val serializableConf = new SerializableConfiguration(hadoopConf)

    // As many splits as task slots, whatever the file system's block size: a last, smaller split
    // would leave a core idle while it runs.
    val slots = session.sparkContext.defaultParallelism
    val splitSize = math.max(1L << 20, (files.map(_.getLen).sum + slots - 1) / slots)
    hadoopConf.setLong(FileInputFormat.SPLIT_MINSIZE, splitSize)
    hadoopConf.setLong(FileInputFormat.SPLIT_MAXSIZE, splitSize)
    val lines = session.sparkContext.newAPIHadoopFile(
      filePaths.mkString(","),
      classOf[ListedFilesTextInputFormat],
      classOf[LongWritable],
      classOf[Text],
      hadoopConf
    )
    val rows = lines.asInstanceOf[NewHadoopRDD[LongWritable, Text]].mapPartitionsWithInputSplit { (split, records) =>
      val file = fileIndex(split.asInstanceOf[FileSplit].getPath.toUri.getPath).toLong << OffsetBits
      val options = format.parserOptions(timeZone)
      val tokenizer = new CsvParser(options.asParserSettings)
      // One field per writable column; converted rows hold every column, NULL for write times.
      val columns = table.writable.toArray
      val converted = columns.map(table.columns.indexOf(_))
      val fields = new GenericInternalRow(columns.length)
      val convert = UnsafeProjection.create(conversions)
      var line = new Array[Byte](1024)
      // The first thing wrong with a row, in column order; null when nothing is.
      def firstProblem(row: InternalRow): String = {
        var i = 0
        while (i < columns.length) {
          val c = columns(i)
          val (raw, value) = (fields.isNullAt(i), row.isNullAt(converted(i)))
          if (raw && c.isKey) return s"key column '${c.name}' is empty"
          if (raw && !c.nullable) return s"column '${c.name}' is NOT NULL but empty"
          if (!raw && value) {
            return s"${if (c.isKey) "key column" else "column"} '${c.name}' value '${fields.getUTF8String(i)}' is not a ${c.dataType.sql}"
          }
          i += 1
        }
        null
      }
      def bad(order: Long, what: String): Option[Nothing] = {
        metrics.badRows += 1
        if (onBadRow.skip) None
        else throw onBadRow.failure(s"${describe(order, filePaths, serializableConf.value)}: $what")
      }
      records.flatMap { case (offset, text) =>
        if (format.skips(text) || (format.header && offset.get == 0)) None
        else {
          metrics.rowsRead += 1
          val order = file + offset.get
          // The tokenizer ends a record at a line break, or else at the end of its input, which it
          // signals with an exception: a line break after every line saves one exception per row.
          val length = text.getLength
          if (line.length <= length) line = new Array[Byte](math.max(length + 1, line.length * 2))
          System.arraycopy(text.getBytes, 0, line, 0, length)
          line(length) = '\n'
          val tokens = tokenizer.parseLine(new String(line, 0, length + 1, StandardCharsets.UTF_8))
          if (tokens.length != columns.length) bad(order, format.fieldCountProblem(tokens.length))
          else {
            var i = 0
            while (i < tokens.length) {
              val token = tokens(i)
              fields.update(i, if (token == null || token == options.nullValue) null else UTF8String.fromString(token))
              i += 1
            }
            val row: InternalRow = convert(fields)
            val problem = firstProblem(row)
            if (problem == null) Some(order -> row) else bad(order, problem)
          }
        }
      }
    }
    rows
  }

  /** Each column's value from its field, as a string, by SQL's casts: NULL where it does not convert. */
  private def converters(session: SparkSession, format: Format): Seq[Expression] = {
    val table = format.table
    val strings = StructType(table.writable.map(c => StructField(c.name, StringType)))
    val converted = session.asInstanceOf[classic.SparkSession]
      .internalCreateDataFrame(session.sparkContext.emptyRDD[InternalRow], strings)
      .select(table.columns.map { c =>
        if (c.isWriteTime) lit(null).cast(c.dataType).as(c.name)
        else convert(col(quote(c.name)), c.dataType, format.csvOptions)
      }: _*)
    // Functions such as try_to_timestamp only stand for the expressions that compute them.
    val project = ReplaceExpressions(converted.queryExecution.analyzed).asInstanceOf[Project]
    BindReferences.bindReferences(project.projectList.map(_.asInstanceOf[Expression]), project.child.output)
  }

  /** Where a row's order says it came from, as the line number a text editor shows. */
  def describe(order: Long, files: IndexedSeq[String], conf: Configuration): String = {
    val file = files((order >>> OffsetBits).toInt)
    val offset = order & ((1L << OffsetBits) - 1)
    val path = new Path(file)
    val in = path.getFileSystem(conf).open(path)
    try {
      var line = 1L
      var read = 0L
      val buffer = new Array[Byte](64 * 1024)
      while (read < offset) {
        val n = in.read(buffer, 0, math.min(buffer.length.toLong, offset - read).toInt)
        if (n < 0) read = offset
        else { var i = 0; while (i < n) { if (buffer(i) == '\n') line += 1; i += 1 }; read += n }
      }
      s"$file line $line"
    } finally in.close()
  }

  private def convert(raw: Column, dataType: DataType, options: Map[String, String]): Column = {
    def option(name: String) = options.collectFirst { case (k, v) if k.equalsIgnoreCase(name) => v }
    dataType match {
      case StringType => raw
      case DateType if option("dateFormat").isDefined => to_date(try_to_timestamp(raw, lit(option("dateFormat").get)))
      case TimestampType if option("timestampFormat").isDefined =>
        try_to_timestamp(raw, lit(option("timestampFormat").get))
      case other => raw.try_cast(other)
    }
  }

  private def quote(name: String): String = "`" + name.replace("`", "``") + "`"

  /** The files a path names: a file, the visible files of a directory, or a glob's matches. */
  private def inputFiles(path: String, conf: Configuration): IndexedSeq[org.apache.hadoop.fs.FileStatus] = {
    val p = new Path(path)
    val fs: FileSystem = p.getFileSystem(conf)
    val matched = Option(fs.globStatus(p)).toSeq.flatten
    matched.flatMap { status =>
      if (status.isDirectory) fs.listStatus(status.getPath).toSeq.filter(_.isFile)
        .filterNot(f => f.getPath.getName.startsWith(".") || f.getPath.getName.startsWith("_"))
      else Seq(status)
    }.map(s => { s.setPath(fs.makeQualified(s.getPath)); s }).sortBy(_.getPath.toString).toIndexedSeq
  }
}
