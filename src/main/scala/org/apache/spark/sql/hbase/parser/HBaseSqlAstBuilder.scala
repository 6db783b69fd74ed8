// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.parser

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.antlr.v4.runtime.ParserRuleContext
import org.antlr.v4.runtime.misc.Interval

import org.apache.spark.sql.catalyst.parser.ParserInterface
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.metadata.{
  CellMapping, CellRef, FamilyOptions, HBaseColumn, HBaseTableDef, HBaseTableName, TableFormat, TableLayout
}
import org.apache.spark.sql.hbase.codec.SplitPoints
import org.apache.spark.sql.hbase.commands._
import org.apache.spark.sql.hbase.connector.HBaseTableIdent
import org.apache.spark.sql.hbase.parser.HBaseSqlBaseParser._
import org.apache.spark.sql.types.DataType

/** Builds our commands from the parse tree of one statement. */
class HBaseSqlAstBuilder(sqlText: String, delegate: ParserInterface) extends HBaseSqlBaseBaseVisitor[AnyRef] {

  def visitHbaseStatement(ctx: HbaseStatementContext): LogicalPlan = visit(ctx).asInstanceOf[LogicalPlan]

  override def visitCreateTable(ctx: CreateTableContext): LogicalPlan = {
    val ident = hbaseTable(ctx.table, "CREATE TABLE")
    val name = ident.name
    val elements = ctx.tableElement().asScala.toSeq
    val columns = elements.flatMap(e => Option(e.columnDefinition())).map { c =>
      (identifier(c.name), dataTypeOf(c), c.NOT() != null, Option(c.comment).map(s => string(s)))
    }
    val primaryKeys = elements.filter(_.PRIMARY() != null)
    if (primaryKeys.size > 1) throw error("PRIMARY KEY is given more than once", primaryKeys(1))
    val keyColumns = primaryKeys.flatMap(_.keyColumns.asScala.map(identifier))
    val mappings = ctx.columnMapping().asScala.toSeq.map(m => identifier(m.column) -> cellMapping(m))
    val format = Option(ctx.format)
      .map(f => TableFormat.parse(identifier(f), Option(ctx.delimiter).map(string)))
      .getOrElse(TableFormat.Binary)
    val definition = HBaseTableDef.fromStatement(
      name,
      hbaseTableName(ctx.hbaseTable),
      columns,
      keyColumns,
      mappings,
      format,
      Option(ctx.layout).map(l => TableLayout.parse(identifier(l)))
    )
    val splitKeys = SplitPoints.encode(
      definition,
      ctx.splitPoint().asScala.toSeq.map(_.splitValue().asScala.toSeq.map(v => originalText(v))),
      text => delegate.parseExpression(text)
    )
    val familyOptions = ctx.familyOptions().asScala.toSeq.map { f =>
      val families = (definition.families ++ definition.markerFamily).distinct
      FamilyOptions.of(
        name,
        families,
        identifier(f.family),
        f.familyOption().asScala.toSeq.map { o =>
          identifier(o.key) ->
            Option(o.number).map(_.getText).orElse(Option(o.text).map(string)).getOrElse(identifier(o.word))
        }
      )
    }
    familyOptions.groupBy(_.family).collectFirst { case (family, given) if given.size > 1 => family }.foreach {
      family =>
        throw error(s"CREATE TABLE $name: FAMILIES names '$family' more than once", ctx)
    }
    CreateHBaseTableCommand(
      definition,
      ifNotExists = ctx.EXISTS() != null,
      splitKeys,
      familyOptions,
      ident.catalog,
      layoutNamed = ctx.layout != null
    )
  }

  override def visitAddColumn(ctx: AddColumnContext): LogicalPlan = {
    val table = hbaseTable(ctx.table, "ALTER TABLE")
    val name = table.toString
    val c = ctx.columnDefinition()
    val mapped = identifier(ctx.columnMapping().column)
    if (!mapped.equalsIgnoreCase(identifier(c.name))) {
      throw error(
        s"ALTER TABLE $name ADD: MAPPED BY names column '$mapped' but the new column is '${identifier(c.name)}'",
        ctx.columnMapping()
      )
    }
    val mapping = cellMapping(ctx.columnMapping())
    val column = HBaseColumn(
      identifier(c.name),
      dataTypeOf(c),
      nullable = c.NOT() == null,
      Some(mapping.cell).filterNot(_ => mapping.writeTime),
      Option(c.comment).map(s => string(s)),
      Some(mapping.cell).filter(_ => mapping.writeTime)
    )
    AddHBaseColumnCommand(table, column)
  }

  private def cellMapping(m: ColumnMappingContext): CellMapping =
    CellMapping(CellRef(identifier(m.family), identifier(m.qualifier)), writeTime = m.WRITETIME() != null)

  override def visitDropColumn(ctx: DropColumnContext): LogicalPlan =
    DropHBaseColumnCommand(parts(ctx.table), identifier(ctx.column), sparkPlan)

  override def visitShowIndexes(ctx: ShowIndexesContext): LogicalPlan =
    ShowIndexesCommand(hbaseTable(ctx.table, "SHOW INDEXES"))

  override def visitCheckIndex(ctx: CheckIndexContext): LogicalPlan =
    CheckGlobalIndexCommand(hbaseTable(ctx.table, "CHECK INDEX"), identifier(ctx.index), repair = ctx.REPAIR() != null)

  override def visitLoadData(ctx: LoadDataContext): LogicalPlan = {
    val options = ctx.loadOption().asScala.toSeq.map { o =>
      Option(o.key).map(identifier).getOrElse(string(o.quotedKey)) -> string(o.value)
    }
    val duplicated =
      options.groupBy(_._1.toLowerCase(java.util.Locale.ROOT)).collectFirst { case (k, vs) if vs.size > 1 => k }
    duplicated.foreach(k => throw error(s"LOAD DATA OPTIONS: option '$k' is given more than once", ctx))
    val spark = scala.util.Try(delegate.parsePlan(sqlText)).toOption // Spark's own LOAD DATA, for its tables
    LoadDataCommand(
      parts(ctx.table),
      string(ctx.path),
      local = ctx.LOCAL() != null,
      parallel = ctx.PARALLEL() != null,
      overwrite = ctx.OVERWRITE() != null,
      Option(ctx.delimiter).map(string),
      options.toMap,
      spark
    )
  }

  private def parts(ctx: MultipartIdentifierContext): Seq[String] = ctx.parts.asScala.map(identifier).toSeq

  private def dataTypeOf(c: ColumnDefinitionContext): DataType =
    try delegate.parseDataType(originalText(c.dataType()))
    catch {
      case NonFatal(_) =>
        throw error(s"Unknown type '${originalText(c.dataType())}' for column '${identifier(c.name)}'", c.dataType())
    }

  /** The same statement as Spark would plan it, for tables that are not ours. */
  private def sparkPlan: LogicalPlan = delegate.parsePlan(sqlText)

  /** A table of the session's HBase definitions (`t`), or of the HBase catalog named first (`c.t`, `c.default.t`). */
  private def hbaseTable(ctx: MultipartIdentifierContext, statement: String): HBaseTableIdent =
    HBaseTableIdent.parse(parts(ctx), statement).fold(message => throw error(message, ctx), identity)

  private def hbaseTableName(ctx: HbaseTableNameContext): HBaseTableName =
    if (ctx.quoted != null) HBaseTableName.parse(string(ctx.quoted))
    else HBaseTableName(Option(ctx.namespace).map(identifier).getOrElse("default"), identifier(ctx.name))

  private def identifier(ctx: IdentifierContext): String = {
    val text = ctx.getText
    if (ctx.BACKQUOTED_IDENTIFIER() != null) text.substring(1, text.length - 1).replace("``", "`") else text
  }

  private def string(ctx: StringLitContext): String = {
    val text = ctx.getText
    val body = text.substring(1, text.length - 1)
    if (text.startsWith("'")) body.replace("''", "'").replace("\\'", "'") else body.replace("\\\"", "\"")
  }

  private def error(message: String, ctx: ParserRuleContext): HBaseSQLException =
    new HBaseSQLException(message, line = Some(ctx.start.getLine), position = Some(ctx.start.getCharPositionInLine))

  private def originalText(ctx: ParserRuleContext): String =
    ctx.start.getInputStream.getText(Interval.of(ctx.start.getStartIndex, ctx.stop.getStopIndex))
}
