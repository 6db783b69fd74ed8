// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.parser

import org.antlr.v4.runtime._
import org.antlr.v4.runtime.atn.PredictionMode
import org.antlr.v4.runtime.misc.ParseCancellationException

import org.apache.spark.sql.catalyst.{FunctionIdentifier, TableIdentifier}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.parser.{
  ParameterContext, ParseErrorListener, ParseException, ParserInterface, SqlStatementSplitResult
}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.ExplainMode
import org.apache.spark.sql.execution.command.ExplainCommand
import org.apache.spark.sql.types.{DataType, StructType}

/**
 * Parses the statements spark-hbase-sql adds and hands every other statement, unchanged, to
 * Spark's parser. Only plans go through our grammar; expressions, types and identifiers are
 * Spark's alone.
 */
class HBaseSqlParser(delegate: ParserInterface) extends ParserInterface {

  override def parsePlan(sqlText: String): LogicalPlan =
    parseOurs(sqlText).getOrElse(withPhoenixSpellings(sqlText)(delegate.parsePlan))

  override def parsePlanWithParameters(sqlText: String, paramContext: ParameterContext): LogicalPlan =
    parseOurs(sqlText).getOrElse(withPhoenixSpellings(sqlText)(delegate.parsePlanWithParameters(_, paramContext)))

  /**
   * Spark's plan for the statement; if Spark refuses it and it has one of Phoenix's spellings
   * ([[PhoenixSpellings]]), the plan of it in Spark's, else Spark's error. A statement Spark
   * parses is never changed.
   */
  private def withPhoenixSpellings(sqlText: String)(parse: String => LogicalPlan): LogicalPlan =
    try parse(sqlText)
    catch {
      case e: ParseException =>
        PhoenixSpellings.hintsWithCommas(sqlText).orElse(PhoenixSpellings.includeAsOption(sqlText))
          .flatMap(s => scala.util.Try(parse(s)).toOption).getOrElse(throw e)
    }

  /**
   * Our plan for the statement, or None when it is not one of ours. EXPLAIN of one of ours is
   * Spark's EXPLAIN of our plan: Spark's grammar would refuse the statement after EXPLAIN.
   */
  private def parseOurs(sqlText: String): Option[LogicalPlan] = HBaseSqlParser.explained(sqlText) match {
    case Some((mode, statement)) => parseOurs(statement).map(ExplainCommand(_, mode))
    case None => if (!HBaseSqlParser.mayBeOurs(sqlText)) None else parseWithOurGrammar(sqlText)
  }

  private def parseWithOurGrammar(sqlText: String): Option[LogicalPlan] = {
    val builder = new HBaseSqlAstBuilder(sqlText, delegate)
    parse(sqlText)(_.singleStatement()) match {
      case ctx: HBaseSqlBaseParser.SingleStatementContext =>
        ctx.statement() match {
          case ours: HBaseSqlBaseParser.HbaseContext => Some(builder.visitHbaseStatement(ours.hbaseStatement()))
          case _ if mentionsMappedBy(sqlText) =>
            // A statement with MAPPED BY is meant for us: report its mistake against our grammar.
            val strict = parse(sqlText)(_.strictStatement())
            Some(builder.visitHbaseStatement(strict.hbaseStatement()))
          case _ => None
        }
    }
  }

  private def mentionsMappedBy(sqlText: String): Boolean = {
    val lexer = new HBaseSqlBaseLexer(CharStreams.fromString(sqlText))
    lexer.removeErrorListeners()
    val tokens = new CommonTokenStream(lexer)
    tokens.fill()
    val significant = scala.jdk.CollectionConverters.ListHasAsScala(tokens.getTokens).asScala
      .filter(_.getChannel == Token.DEFAULT_CHANNEL).map(_.getType)
    significant.headOption.exists(t => t == HBaseSqlBaseLexer.CREATE || t == HBaseSqlBaseLexer.ALTER) &&
    significant.sliding(2).exists(_ == Seq(HBaseSqlBaseLexer.MAPPED, HBaseSqlBaseLexer.BY))
  }

  private def parse[T](sqlText: String)(rule: HBaseSqlBaseParser => T): T = {
    val lexer = new HBaseSqlBaseLexer(CharStreams.fromString(sqlText))
    lexer.removeErrorListeners()
    lexer.addErrorListener(ParseErrorListener)
    val tokens = new CommonTokenStream(lexer)
    val parser = new HBaseSqlBaseParser(tokens)
    parser.removeErrorListeners()
    parser.addErrorListener(ParseErrorListener)
    try {
      // SLL is fast and almost always enough; LL settles the rest, as Spark's own parser does.
      parser.getInterpreter.setPredictionMode(PredictionMode.SLL)
      parser.setErrorHandler(new BailErrorStrategy)
      rule(parser)
    } catch {
      case _: ParseCancellationException =>
        tokens.seek(0)
        parser.reset()
        parser.setErrorHandler(new DefaultErrorStrategy)
        parser.getInterpreter.setPredictionMode(PredictionMode.LL)
        rule(parser)
      case e: ParseException if e.command.isEmpty => throw e.withCommand(sqlText)
    }
  }

  override def parseExpression(sqlText: String): Expression = delegate.parseExpression(sqlText)
  override def parseTableIdentifier(sqlText: String): TableIdentifier = delegate.parseTableIdentifier(sqlText)
  override def parseFunctionIdentifier(sqlText: String): FunctionIdentifier = delegate.parseFunctionIdentifier(sqlText)
  override def parseMultipartIdentifier(sqlText: String): Seq[String] = delegate.parseMultipartIdentifier(sqlText)
  override def parseQuery(sqlText: String): LogicalPlan = delegate.parseQuery(sqlText)
  override def parseRoutineParam(sqlText: String): StructType = delegate.parseRoutineParam(sqlText)
  override def splitStatements(sqlText: String): SqlStatementSplitResult = delegate.splitStatements(sqlText)
  override def parseTableSchema(sqlText: String): StructType = delegate.parseTableSchema(sqlText)
  override def parseDataType(sqlText: String): DataType = delegate.parseDataType(sqlText)
}

object HBaseSqlParser {

  private val Explain = "(?is)\\s*EXPLAIN(?:\\s+(EXTENDED|FORMATTED|CODEGEN|COST))?\\s+(.*)".r

  /**
   * The mode and the statement of an EXPLAIN, as Spark's grammar reads them (no mode: simple). The
   * statement keeps its place in the text, EXPLAIN and its mode blanked, so that an error in it
   * gives the line and position the user sees.
   */
  private def explained(sqlText: String): Option[(ExplainMode, String)] =
    Explain.unapplySeq(sqlText).map { groups =>
      val start = sqlText.length - groups(1).length
      val blanked = sqlText.substring(0, start).map(c => if (c == '\n' || c == '\r') c else ' ')
      ExplainMode.fromString(Option(groups.head).getOrElse("simple")) -> (blanked + groups(1))
    }

  /** The first words of our statements (see hbaseStatement in HBaseSqlBase.g4). */
  private val OurFirstWords = Set("CREATE", "ALTER", "SHOW", "LOAD", "CHECK")

  /**
   * False only when the statement cannot be ours, told without running our grammar: its first
   * token, after whitespace, is a word that begins none of our statements (a SELECT, an INSERT).
   * Anything else (a comment first, a quote, a parenthesis) goes through our grammar as before.
   * Whitespace and words are those of our lexer (WS, IDENTIFIER; keywords are case-insensitive).
   */
  def mayBeOurs(sqlText: String): Boolean = {
    val length = sqlText.length
    var start = 0
    while (start < length && " \r\n\t".indexOf(sqlText.charAt(start)) >= 0) start += 1
    var end = start
    while (end < length && isWordChar(sqlText.charAt(end))) end += 1
    end == start || OurFirstWords.contains(sqlText.substring(start, end).toUpperCase(java.util.Locale.ROOT))
  }

  private def isWordChar(c: Char): Boolean =
    (c >= 'a' && c <= 'z') ||
      (c >= 'A' && c <= 'Z') ||
      (c >= '0' && c <= '9') || c == '_'
}
