// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

/*
 * The statements spark-hbase-sql adds to Spark SQL. Anything else matches #passThrough and is
 * handed, untouched, to Spark's own parser.
 */
grammar HBaseSqlBase;

options { caseInsensitive = true; }

singleStatement
    : statement ';'* EOF
    ;

// Parses a statement that mentions MAPPED BY strictly, so that a mistake in it is reported
// against our grammar instead of being passed on to Spark.
strictStatement
    : hbaseStatement ';'* EOF
    ;

statement
    : hbaseStatement                                                      #hbase
    | .*?                                                                 #passThrough
    ;

hbaseStatement
    : CREATE TABLE (IF NOT EXISTS)? table=multipartIdentifier
        '(' tableElement (',' tableElement)* ')'
        MAPPED BY '(' hbaseTable=hbaseTableName (',' COLS '=' '[' (columnMapping (',' columnMapping)*)? ']')? ')'
        (IN format=identifier (DELIMITER delimiter=stringLit)?)?
        (LAYOUT layout=identifier)?
        (FAMILIES '(' familyOptions (',' familyOptions)* ')')?
        (SPLIT ON '(' splitPoint (',' splitPoint)* ')')?                  #createTable
    | ALTER TABLE table=multipartIdentifier ADD COLUMN? columnDefinition
        MAPPED BY '(' columnMapping ')'                                   #addColumn
    | ALTER TABLE table=multipartIdentifier DROP COLUMN? column=identifier #dropColumn
    | SHOW INDEXES (ON | FROM | IN) table=multipartIdentifier              #showIndexes
    | CHECK INDEX index=identifier ON TABLE? table=multipartIdentifier REPAIR? #checkIndex
    | LOAD DATA PARALLEL? LOCAL? INPATH path=stringLit OVERWRITE?
        INTO TABLE table=multipartIdentifier
        (FIELDS TERMINATED BY delimiter=stringLit)?
        (OPTIONS '(' loadOption (',' loadOption)* ')')?                   #loadData
    ;

loadOption
    : (key=identifier | quotedKey=stringLit) '='? value=stringLit
    ;

familyOptions
    : family=identifier '(' familyOption (',' familyOption)* ')'
    ;

familyOption
    : key=identifier '=' (number=INTEGER_VALUE | text=stringLit | word=identifier)
    ;

tableElement
    : columnDefinition
    | PRIMARY KEY '(' keyColumns+=identifier (',' keyColumns+=identifier)* ')'
    ;

columnDefinition
    : name=identifier dataType (NOT NULL)? (COMMENT comment=stringLit)?
    ;

// The type text is handed to Spark's own type parser.
dataType
    : identifier ('<' typeArgument (',' typeArgument)* '>')? ('(' INTEGER_VALUE (',' INTEGER_VALUE)* ')')?
    ;

typeArgument
    : (identifier ':')? dataType
    ;

// One split point: a prefix of the primary key, as literals Spark's own parser reads.
splitPoint
    : '(' splitValue (',' splitValue)* ')'
    ;

splitValue
    : (~(',' | '(' | ')'))+
    ;

// A cell's value, or with WRITETIME the time that value was written.
columnMapping
    : column=identifier '=' family=identifier '.' qualifier=identifier
    | column=identifier '=' WRITETIME '(' family=identifier '.' qualifier=identifier ')'
    ;

hbaseTableName
    : (namespace=identifier ':')? name=identifier
    | quoted=stringLit
    ;

multipartIdentifier
    : parts+=identifier ('.' parts+=identifier)*
    ;

identifier
    : IDENTIFIER
    | BACKQUOTED_IDENTIFIER
    | nonReserved
    ;

stringLit
    : STRING
    ;

nonReserved
    : ADD | ALTER | BY | CHECK | COLS | COLUMN | COMMENT | CREATE | DATA | DELIMITER | DESC | DESCRIBE | DROP | EXISTS
    | EXTENDED | FAMILIES | FIELDS | FROM | IF | IN | INDEX | INDEXES | INPATH | INTO | KEY | LAYOUT | LIKE | LOAD | LOCAL | MAPPED | NOT | NULL | ON
    | OPTIONS | OVERWRITE | PARALLEL | PRIMARY | REPAIR | SHOW | SPLIT | TABLE | TABLES | TERMINATED | WRITETIME
    ;

ADD: 'ADD';
ALTER: 'ALTER';
BY: 'BY';
CHECK: 'CHECK';
COLS: 'COLS';
COLUMN: 'COLUMN';
COMMENT: 'COMMENT';
CREATE: 'CREATE';
DATA: 'DATA';
DELIMITER: 'DELIMITER';
DESC: 'DESC';
DESCRIBE: 'DESCRIBE';
DROP: 'DROP';
EXISTS: 'EXISTS';
EXTENDED: 'EXTENDED';
FAMILIES: 'FAMILIES';
FIELDS: 'FIELDS';
FROM: 'FROM';
IF: 'IF';
IN: 'IN';
INDEX: 'INDEX';
INDEXES: 'INDEXES';
INPATH: 'INPATH';
INTO: 'INTO';
KEY: 'KEY';
LAYOUT: 'LAYOUT';
LIKE: 'LIKE';
LOAD: 'LOAD';
LOCAL: 'LOCAL';
MAPPED: 'MAPPED';
NOT: 'NOT';
NULL: 'NULL';
ON: 'ON';
OPTIONS: 'OPTIONS';
OVERWRITE: 'OVERWRITE';
PARALLEL: 'PARALLEL';
PRIMARY: 'PRIMARY';
REPAIR: 'REPAIR';
SHOW: 'SHOW';
SPLIT: 'SPLIT';
TABLE: 'TABLE';
TABLES: 'TABLES';
TERMINATED: 'TERMINATED';
WRITETIME: 'WRITETIME';

STRING
    : '\'' ( ~('\''|'\\') | ('\\' .) | '\'\'' )* '\''
    | '"' ( ~('"'|'\\') | ('\\' .) )* '"'
    ;

INTEGER_VALUE
    : DIGIT+
    ;

IDENTIFIER
    : (LETTER | DIGIT | '_')+
    ;

BACKQUOTED_IDENTIFIER
    : '`' ( ~'`' | '``' )* '`'
    ;

fragment DIGIT
    : [0-9]
    ;

fragment LETTER
    : [A-Z]
    ;

SIMPLE_COMMENT
    : '--' ~[\r\n]* '\r'? '\n'? -> channel(HIDDEN)
    ;

BRACKETED_COMMENT
    : '/*' .*? '*/' -> channel(HIDDEN)
    ;

WS
    : [ \r\n\t]+ -> channel(HIDDEN)
    ;

// Everything else is a token too, so that any input lexes and can pass through to Spark.
UNRECOGNIZED
    : .
    ;
