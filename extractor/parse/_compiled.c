/*
 * Compiled hot path of the SQL_REDO parser and the literal typer (docs/parser.md,
 * "Compiled and pure-Python implementations").
 *
 * The pure-Python modules (redo_parser.py, redo_grammar.py, value_typing.py) are the
 * reference. This module reads a subset of what they read and must give the same result
 * on it, byte for byte; on anything else it declines and the reference runs:
 *
 *   parse_strict(sql)  -> ParsedRedo, or None when the statement is not one this scanner
 *                         reads (the reference then parses it, errors and relaxed quotes
 *                         included). It walks the grammar of redo_grammar.py with the same
 *                         choices (every repetition there is possessive or atomic, so the
 *                         grammar reads a statement in one way) and accepts only ASCII in
 *                         structural positions: where the reference's Unicode classes (\s,
 *                         \d, \w) would read more, this scanner fails and declines.
 *   typed_image(literals, specs, fallback, *args) -> dict of typed values. specs maps a
 *                         column name to (kind, a, b); a value whose shape is not one of the
 *                         fast shapes below, and every column without a fast kind, is typed
 *                         by fallback(name, literal, *args) (the reference, which also
 *                         raises its errors).
 *   columns_of(rows, names) -> the rows' values column by column (landing: change_batch).
 *   attributes_of(objects, names) -> the objects' attributes column by column (the same).
 *   arrow_buffers(values, kind, precision, scale) -> the buffers of a landing column's Arrow
 *                         array, or None where pyarrow must convert it (land/arrow_buffers.py).
 *   parse_typed(sql, specs, fallback, *args) -> (new, old, rowid): both at once, each value
 *                         typed where it stands in the statement (no Literal per value);
 *                         None for anything either would decline or raise on.
 *
 * Fast shapes: NULL, Unsupported Type, one quoted string, a plain decimal number (quoted or
 * not, no exponent for decimals), TO_DATE/TO_TIMESTAMP/TO_TIMESTAMP_TZ with the default
 * NLS layouts in fixed width, HEXTORAW of plain hex, one UNISTR piece.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <datetime.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- objects handed over by configure() ------------------------------------------- */

static PyObject *ParsedRedoType;  /* the ParsedRedo dataclass */
static PyObject *LiteralType;     /* the Literal NamedTuple (a tuple subclass) */
static PyObject *IsNullLiteral;   /* Literal("IS NULL") */
static PyObject *NoValues;        /* the shared empty mapping of the reference */
static PyObject *Unsupported;     /* UNSUPPORTED */
static PyObject *DecimalType;     /* decimal.Decimal */
static PyObject *UtcZone;         /* datetime.UTC */
static PyObject *StrInsert, *StrUpdate, *StrDelete;

#define NOT_HANDLED NULL /* with no exception set: the fast path declines */

/* ---- text access ------------------------------------------------------------------- */

typedef struct {
    PyObject *obj;
    int kind;
    const void *data;  /* character 0 of this text: obj's character `offset` */
    Py_ssize_t n;
    Py_ssize_t offset; /* 0, or where a literal read in place starts in its statement */
} Text;

#define END_CHAR 0x110000u

static inline Py_UCS4 ch(const Text *t, Py_ssize_t i) {
    return i < t->n ? PyUnicode_READ(t->kind, t->data, i) : END_CHAR;
}

static inline int is_space(Py_UCS4 c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
static inline int is_digit(Py_UCS4 c) { return c >= '0' && c <= '9'; }
static inline int is_alpha(Py_UCS4 c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
static inline int is_word(Py_UCS4 c) { return is_alpha(c) || is_digit(c); }
/* For \b: the reference's \w includes non-ASCII letters and digits; count every
 * non-ASCII character as a word character, so a boundary is only seen where it is sure. */
static inline int maybe_word(Py_UCS4 c) { return is_word(c) || (c >= 0x80 && c != END_CHAR); }
static inline Py_UCS4 upper(Py_UCS4 c) { return (c >= 'a' && c <= 'z') ? c - 32 : c; }

static Py_ssize_t skip_space(const Text *t, Py_ssize_t i) {
    while (i < t->n && is_space(ch(t, i))) i++;
    return i;
}

/* \s+ : -1 when there is none */
static Py_ssize_t space1(const Text *t, Py_ssize_t i) {
    Py_ssize_t j = skip_space(t, i);
    return j > i ? j : -1;
}

/* case-insensitive ASCII keyword (no boundary check) */
static Py_ssize_t keyword(const Text *t, Py_ssize_t i, const char *word) {
    for (; *word; word++, i++) {
        if (upper(ch(t, i)) != (Py_UCS4)*word) return -1;
    }
    return i;
}

static Py_ssize_t literal_text(const Text *t, Py_ssize_t i, const char *text) {
    for (; *text; text++, i++) {
        if (ch(t, i) != (Py_UCS4)*text) return -1;
    }
    return i;
}

/* "..." with "" doubled; sets *doubled when a "" occurs */
static Py_ssize_t ident(const Text *t, Py_ssize_t i, int *doubled) {
    if (ch(t, i) != '"') return -1;
    i++;
    for (;;) {
        if (i >= t->n) return -1;
        if (ch(t, i) == '"') {
            if (ch(t, i + 1) == '"') {
                *doubled = 1;
                i += 2;
                continue;
            }
            return i + 1;
        }
        i++;
    }
}

/* The first ' in d[i, n), or NULL. Gaps between quotes are short in text with '' pairs, and a
 * call to memchr costs more than scanning a short gap: the first 64 bytes are read eight at
 * a time here (the lowest byte flagged by the zero-byte test is the first quote), the rest by
 * memchr. */
static inline const Py_UCS1 *next_quote(const Py_UCS1 *d, Py_ssize_t i, Py_ssize_t n) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t ones = UINT64_C(0x0101010101010101), highs = UINT64_C(0x8080808080808080);
    const uint64_t quotes = ones * (uint64_t)'\'';
    Py_ssize_t near = n - i > 64 ? i + 64 : n;
    for (; i + 8 <= near; i += 8) {
        uint64_t word;
        memcpy(&word, d + i, 8);
        uint64_t x = word ^ quotes;
        uint64_t found = (x - ones) & ~x & highs;
        if (found) return d + i + (__builtin_ctzll(found) >> 3);
    }
    for (; i < near; i++)
        if (d[i] == '\'') return d + i;
#endif
    return i < n ? memchr(d + i, '\'', (size_t)(n - i)) : NULL;
}

/* '...' with '' doubled: the end, -1 when unterminated; sets *doubled when a '' occurs */
static Py_ssize_t string_end(const Text *t, Py_ssize_t i, int *doubled) {
    if (ch(t, i) != '\'') return -1;
    i++;
    if (t->kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *d = (const Py_UCS1 *)t->data;
        for (;;) {
            const Py_UCS1 *q = next_quote(d, i, t->n);
            if (q == NULL) return -1;
            i = q - d;
            if (i + 1 < t->n && d[i + 1] == '\'') {
                *doubled = 1;
                i += 2;
                continue;
            }
            return i + 1;
        }
    }
    for (;;) {
        if (i >= t->n) return -1;
        if (ch(t, i) == '\'') {
            if (ch(t, i + 1) == '\'') {
                *doubled = 1;
                i += 2;
                continue;
            }
            return i + 1;
        }
        i++;
    }
}

static Py_ssize_t string_lit(const Text *t, Py_ssize_t i) {
    int doubled = 0;
    return string_end(t, i, &doubled);
}

/* [-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)? */
static Py_ssize_t number(const Text *t, Py_ssize_t i) {
    Py_UCS4 c = ch(t, i);
    if (c == '-' || c == '+') i++;
    if (is_digit(ch(t, i))) {
        while (is_digit(ch(t, i))) i++;
        if (ch(t, i) == '.') {
            i++;
            while (is_digit(ch(t, i))) i++;
        }
    } else if (ch(t, i) == '.' && is_digit(ch(t, i + 1))) {
        i++;
        while (is_digit(ch(t, i))) i++;
    } else {
        return -1;
    }
    c = ch(t, i);
    if (c == 'e' || c == 'E') {
        Py_ssize_t j = i + 1;
        if (ch(t, j) == '-' || ch(t, j) == '+') j++;
        if (is_digit(ch(t, j))) {
            while (is_digit(ch(t, j))) j++;
            i = j;
        }
    }
    return i;
}

/* [A-Za-z_][\w$]*\(\s*(?:ARG(?:\s*,\s*ARG)*)?\s*\) with ARG = STRING | NUMBER */
static Py_ssize_t function(const Text *t, Py_ssize_t i) {
    if (!is_alpha(ch(t, i))) return -1;
    i++;
    while (is_word(ch(t, i)) || ch(t, i) == '$') i++;
    if (ch(t, i) != '(') return -1;
    i = skip_space(t, i + 1);
    Py_ssize_t arg = ch(t, i) == '\'' ? string_lit(t, i) : number(t, i);
    if (arg >= 0) {
        i = arg;
        for (;;) {
            Py_ssize_t j = skip_space(t, i);
            if (ch(t, j) != ',') break;
            j = skip_space(t, j + 1);
            Py_ssize_t next = ch(t, j) == '\'' ? string_lit(t, j) : number(t, j);
            if (next < 0) break;
            i = next;
        }
    }
    i = skip_space(t, i);
    return ch(t, i) == ')' ? i + 1 : -1;
}

static Py_ssize_t term(const Text *t, Py_ssize_t i) {
    return ch(t, i) == '\'' ? string_lit(t, i) : function(t, i);
}

/* (?>TERM(?:\s*\|\|\s*TERM)*|NUMBER|NULL\b|Unsupported Type). *string_shape is -1, or,
 * when the value is one string literal '...', whether it has '' pairs (0 or 1). */
static Py_ssize_t value(const Text *t, Py_ssize_t i, int *string_shape) {
    *string_shape = -1;
    int doubled = 0, is_string = ch(t, i) == '\'';
    Py_ssize_t end = is_string ? string_end(t, i, &doubled) : function(t, i); /* term() */
    if (end >= 0) {
        for (;;) {
            Py_ssize_t j = skip_space(t, end);
            if (ch(t, j) != '|' || ch(t, j + 1) != '|') break;
            is_string = 0; /* a concatenation follows: not one string literal */
            j = skip_space(t, j + 2);
            Py_ssize_t next = term(t, j);
            if (next < 0) break;
            end = next;
        }
        if (is_string) *string_shape = doubled;
        return end;
    }
    end = number(t, i);
    if (end >= 0) return end;
    end = keyword(t, i, "NULL");
    if (end >= 0 && !maybe_word(ch(t, end))) return end;
    return literal_text(t, i, "Unsupported Type");
}

/* (?:/\*.*?\*\/\s*)* */
static Py_ssize_t comments(const Text *t, Py_ssize_t i) {
    while (ch(t, i) == '/' && ch(t, i + 1) == '*') {
        Py_ssize_t j = i + 2;
        for (;;) {
            if (j + 1 >= t->n) return i; /* unterminated: not a comment */
            if (ch(t, j) == '*' && ch(t, j + 1) == '/') break;
            j++;
        }
        i = skip_space(t, j + 2);
    }
    return i;
}

/* (?:[A-Za-z_][\w$#]*\.)? */
static Py_ssize_t alias(const Text *t, Py_ssize_t i) {
    if (!is_alpha(ch(t, i))) return i;
    Py_ssize_t j = i + 1;
    while (is_word(ch(t, j)) || ch(t, j) == '$' || ch(t, j) == '#') j++;
    return ch(t, j) == '.' ? j + 1 : i;
}

/* \s*;?\s*\Z */
static int at_end(const Text *t, Py_ssize_t i) {
    i = skip_space(t, i);
    if (ch(t, i) == ';') i = skip_space(t, i + 1);
    return i == t->n;
}

/* ---- building the result ----------------------------------------------------------- */

/* What parse_typed types the values with (NULL for parse_strict: Literals); see "typing". */
typedef struct Typing Typing;
static PyObject *value_at(const Text *t, Py_ssize_t start, Py_ssize_t end, int string_shape,
                          PyObject *name, const Typing *typing);
static PyObject *is_null_value(PyObject *name, const Typing *typing);
static int read_value(const Text *t, Py_ssize_t start, PyObject *name, const Typing *typing,
                      Py_ssize_t *end, PyObject **result);

static PyObject *DoubledQuote, *Quote;

/* Column, owner and table names repeat from statement to statement: a direct-mapped cache
 * hands out the same str object (its hash already computed) instead of a new copy. */
#define NAME_CACHE_SLOTS 1024
#define NAME_CACHE_MAX_LENGTH 128
static PyObject *name_cache[NAME_CACHE_SLOTS];

static int same_text(PyObject *name, const Text *t, Py_ssize_t start, Py_ssize_t len) {
    if (PyUnicode_GET_LENGTH(name) != len) return 0;
    int kind = PyUnicode_KIND(name);
    const void *data = PyUnicode_DATA(name);
    if (kind == t->kind)
        return memcmp(data, (const char *)t->data + start * kind, (size_t)(len * kind)) == 0;
    for (Py_ssize_t i = 0; i < len; i++)
        if (PyUnicode_READ(kind, data, i) != ch(t, start + i)) return 0;
    return 1;
}

static PyObject *name_at(const Text *t, Py_ssize_t start, Py_ssize_t end) {
    Py_ssize_t len = end - start;
    if (len > NAME_CACHE_MAX_LENGTH) return PyUnicode_Substring(t->obj, start, end);
    size_t hash = 2166136261u ^ (size_t)len;
    for (Py_ssize_t i = start; i < end; i++) hash = (hash ^ ch(t, i)) * 16777619u;
    PyObject **slot = &name_cache[hash & (NAME_CACHE_SLOTS - 1)];
    if (*slot != NULL && same_text(*slot, t, start, len)) return Py_NewRef(*slot);
    PyObject *name = PyUnicode_Substring(t->obj, start, end);
    if (name == NULL) return NULL;
    if (PyObject_Hash(name) == -1) {
        Py_DECREF(name);
        return NULL;
    }
    Py_XSETREF(*slot, Py_NewRef(name));
    return name;
}

static PyObject *unquoted_identifier(const Text *t, Py_ssize_t start, Py_ssize_t end,
                                     int doubled) {
    if (!doubled) return name_at(t, start + 1, end - 1);
    PyObject *inner = PyUnicode_Substring(t->obj, start + 1, end - 1);
    if (inner == NULL || !doubled) return inner;
    PyObject *result = PyUnicode_Replace(inner, DoubledQuote, Quote, -1);
    Py_DECREF(inner);
    return result;
}

static PyObject *new_literal(const Text *t, Py_ssize_t start, Py_ssize_t end) {
    PyObject *text = PyUnicode_Substring(t->obj, start, end);
    if (text == NULL) return NULL;
    PyObject *literal = PyTuple_Type.tp_alloc((PyTypeObject *)LiteralType, 1);
    if (literal == NULL) {
        Py_DECREF(text);
        return NULL;
    }
    PyTuple_SET_ITEM(literal, 0, text);
    return literal;
}

/* (?:IDENT\s*\.\s*)?IDENT: the owner (or None) and the table; -1 when not there */
static Py_ssize_t table_name(const Text *t, Py_ssize_t i, PyObject **owner, PyObject **table) {
    int doubled_a = 0, doubled_b = 0;
    Py_ssize_t a_end = ident(t, i, &doubled_a);
    if (a_end < 0) return -1;
    Py_ssize_t j = skip_space(t, a_end);
    if (ch(t, j) == '.') {
        j = skip_space(t, j + 1);
        Py_ssize_t b_end = ident(t, j, &doubled_b);
        if (b_end < 0) return -1;
        *owner = unquoted_identifier(t, i, a_end, doubled_a);
        if (*owner == NULL) return -2;
        *table = unquoted_identifier(t, j, b_end, doubled_b);
        if (*table == NULL) {
            Py_CLEAR(*owner);
            return -2;
        }
        return b_end;
    }
    *owner = Py_NewRef(Py_None);
    *table = unquoted_identifier(t, i, a_end, doubled_a);
    if (*table == NULL) {
        Py_CLEAR(*owner);
        return -2;
    }
    return a_end;
}

/* (?:\s+(?!(?i:set|where)\b)[A-Za-z_][\w$#]*)? */
static Py_ssize_t table_alias(const Text *t, Py_ssize_t i) {
    Py_ssize_t j = space1(t, i);
    if (j < 0 || !is_alpha(ch(t, j))) return i;
    Py_ssize_t k = keyword(t, j, "SET");
    if (k >= 0 && !maybe_word(ch(t, k))) return i;
    k = keyword(t, j, "WHERE");
    if (k >= 0 && !maybe_word(ch(t, k))) return i;
    k = j + 1;
    while (is_word(ch(t, k)) || ch(t, k) == '$' || ch(t, k) == '#') k++;
    return k;
}

/* Returns 1 and sets *end on success, 0 when the text does not read, -1 on error. */
static int where_clause(const Text *t, Py_ssize_t i, PyObject *old, PyObject **rowid,
                        const Typing *typing) {
    for (;;) {
        /* ALIAS IDENT \s* (?: = \s* COMMENT VALUE | IS\s+NULL) (?: AND | END\Z) */
        Py_ssize_t col_start = alias(t, i);
        int doubled = 0;
        Py_ssize_t col_end = ident(t, col_start, &doubled);
        if (col_end >= 0) {
            Py_ssize_t j = skip_space(t, col_end);
            PyObject *name = NULL, *literal = NULL; /* read with an = value */
            if (ch(t, j) == '=') {
                Py_ssize_t value_start = comments(t, skip_space(t, j + 1));
                name = unquoted_identifier(t, col_start, col_end, doubled);
                if (name == NULL) return -1;
                int read = read_value(t, value_start, name, typing, &j, &literal);
                if (read <= 0) {
                    Py_DECREF(name);
                    return read;
                }
            } else {
                Py_ssize_t k = keyword(t, j, "IS");
                if (k < 0) return 0;
                k = space1(t, k);
                if (k < 0) return 0;
                k = keyword(t, k, "NULL");
                if (k < 0) return 0;
                j = k;
            }
            /* separator: \s+and\s+ first, else END\Z */
            Py_ssize_t next = -1;
            Py_ssize_t k = space1(t, j);
            if (k >= 0) {
                k = keyword(t, k, "AND");
                if (k >= 0) next = space1(t, k);
            }
            if (next < 0 && !at_end(t, j)) {
                Py_XDECREF(name);
                Py_XDECREF(literal);
                return 0;
            }
            if (name == NULL) { /* IS NULL */
                name = unquoted_identifier(t, col_start, col_end, doubled);
                if (name == NULL) return -1;
                literal = is_null_value(name, typing);
            }
            Py_ssize_t before = PyDict_GET_SIZE(old);
            if (literal == NULL || PyDict_SetItem(old, name, literal) < 0) {
                Py_DECREF(name);
                Py_XDECREF(literal);
                return -1;
            }
            Py_DECREF(name);
            Py_DECREF(literal);
            if (PyDict_GET_SIZE(old) == before) return 0; /* a column twice: the reference's */
            if (next < 0) return 1;
            i = next;
            continue;
        }
        /* ROWID\s*=\s*'([^']*)'END\Z */
        Py_ssize_t j = keyword(t, i, "ROWID");
        if (j < 0) return 0;
        j = skip_space(t, j);
        if (ch(t, j) != '=') return 0;
        j = skip_space(t, j + 1);
        if (ch(t, j) != '\'') return 0;
        Py_ssize_t k = j + 1;
        while (k < t->n && ch(t, k) != '\'') k++;
        if (k >= t->n || k == j + 1) return 0; /* unterminated, or empty: the reference's */
        if (!at_end(t, k + 1)) return 0;
        *rowid = PyUnicode_Substring(t->obj, j + 1, k);
        return *rowid == NULL ? -1 : 1;
    }
}

/* A ParsedRedo; with typing, (new, old, rowid) as typed_row types the ParsedRedo's images
 * (an image the statement does not carry is a new empty dict there too). */
static PyObject *make_parsed(PyObject *op, PyObject *owner, PyObject *table, PyObject *new_values,
                             PyObject *old_values, PyObject *rowid, const Typing *typing) {
    if (typing != NULL) {
        PyObject *new_image = new_values == NoValues ? PyDict_New() : Py_NewRef(new_values);
        PyObject *old_image = old_values == NoValues ? PyDict_New() : Py_NewRef(old_values);
        PyObject *result = new_image == NULL || old_image == NULL
                               ? NULL
                               : PyTuple_Pack(3, new_image, old_image, rowid);
        Py_XDECREF(new_image);
        Py_XDECREF(old_image);
        return result;
    }
    PyObject *args[6] = {op, owner, table, new_values, old_values, rowid};
    return PyObject_Vectorcall(ParsedRedoType, args, 6, NULL);
}

static PyObject *parse_insert(const Text *t, Py_ssize_t i, const Typing *typing) {
    /* \s*insert\s+into\s+TABLE\s*\(\s*IDENT(\s*,\s*IDENT)*\s*\)\s*values\s*\(\s* */
    i = keyword(t, i, "INSERT");
    if (i < 0 || (i = space1(t, i)) < 0) Py_RETURN_NONE;
    i = keyword(t, i, "INTO");
    if (i < 0 || (i = space1(t, i)) < 0) Py_RETURN_NONE;
    PyObject *owner = NULL, *table = NULL, *columns = NULL, *values = NULL, *result = NULL;
    i = table_name(t, i, &owner, &table);
    if (i == -2) return NULL;
    if (i < 0) Py_RETURN_NONE;
    columns = PyList_New(0);
    if (columns == NULL) goto error;
    i = skip_space(t, i);
    if (ch(t, i) != '(') goto decline;
    i = skip_space(t, i + 1);
    for (;;) {
        int doubled = 0;
        Py_ssize_t end = ident(t, i, &doubled);
        if (end < 0) goto decline;
        PyObject *name = unquoted_identifier(t, i, end, doubled);
        if (name == NULL || PyList_Append(columns, name) < 0) {
            Py_XDECREF(name);
            goto error;
        }
        Py_DECREF(name);
        i = skip_space(t, end);
        if (ch(t, i) != ',') break;
        i = skip_space(t, i + 1);
    }
    if (ch(t, i) != ')') goto decline;
    i = skip_space(t, i + 1);
    i = keyword(t, i, "VALUES");
    if (i < 0) goto decline;
    i = skip_space(t, i);
    if (ch(t, i) != '(') goto decline;
    i = skip_space(t, i + 1);
    Py_ssize_t count = PyList_GET_SIZE(columns);
    values = _PyDict_NewPresized(count); /* no resize while the values go in */
    if (values == NULL) goto error;
    for (Py_ssize_t index = 0;; index++) {
        /* COMMENT VALUE (?:\s*,\s*|\s*\)END\Z) */
        if (index >= count) goto decline;
        Py_ssize_t start = comments(t, i), end;
        PyObject *name = PyList_GET_ITEM(columns, index), *literal;
        int read = read_value(t, start, name, typing, &end, &literal);
        if (read < 0) goto error;
        if (read == 0) goto decline;
        int failed = PyDict_SetItem(values, name, literal);
        Py_DECREF(literal);
        if (failed) goto error;
        if (PyDict_GET_SIZE(values) == index) goto decline; /* a column twice: the reference's */
        Py_ssize_t j = skip_space(t, end);
        if (ch(t, j) == ',') {
            i = skip_space(t, j + 1);
            continue;
        }
        if (ch(t, j) != ')' || !at_end(t, j + 1) || index + 1 != count) goto decline;
        break;
    }
    result = make_parsed(StrInsert, owner, table, values, NoValues, Py_None, typing);
    goto done;
decline:
    result = Py_NewRef(Py_None);
    goto done;
error:
    result = NULL;
done:
    Py_XDECREF(owner);
    Py_XDECREF(table);
    Py_XDECREF(columns);
    Py_XDECREF(values);
    return result;
}

static PyObject *parse_update(const Text *t, Py_ssize_t i, const Typing *typing) {
    /* \s*update\s+TABLE ALIAS\s+set\s+ PAIR(\s*,\s*PAIR)* (\s+where\s+ | END\Z) */
    i = keyword(t, i, "UPDATE");
    if (i < 0 || (i = space1(t, i)) < 0) Py_RETURN_NONE;
    PyObject *owner = NULL, *table = NULL, *new_values = NULL, *old_values = NULL;
    PyObject *rowid = NULL, *result = NULL;
    i = table_name(t, i, &owner, &table);
    if (i == -2) return NULL;
    if (i < 0) Py_RETURN_NONE;
    i = table_alias(t, i);
    if ((i = space1(t, i)) < 0) goto decline;
    if ((i = keyword(t, i, "SET")) < 0) goto decline;
    if ((i = space1(t, i)) < 0) goto decline;
    new_values = PyDict_New();
    old_values = PyDict_New();
    if (new_values == NULL || old_values == NULL) goto error;
    int has_where = 0;
    for (;;) {
        Py_ssize_t col_start = alias(t, i);
        int doubled = 0;
        Py_ssize_t col_end = ident(t, col_start, &doubled);
        if (col_end < 0) goto decline;
        Py_ssize_t j = skip_space(t, col_end);
        if (ch(t, j) != '=') goto decline;
        Py_ssize_t start = comments(t, skip_space(t, j + 1)), end;
        PyObject *name = unquoted_identifier(t, col_start, col_end, doubled), *literal;
        if (name == NULL) goto error;
        int read = read_value(t, start, name, typing, &end, &literal);
        if (read <= 0) {
            Py_DECREF(name);
            if (read < 0) goto error;
            goto decline;
        }
        Py_ssize_t before = PyDict_GET_SIZE(new_values);
        int failed = PyDict_SetItem(new_values, name, literal) < 0;
        Py_DECREF(name);
        Py_XDECREF(literal);
        if (failed) goto error;
        if (PyDict_GET_SIZE(new_values) == before) goto decline; /* a column twice */
        j = skip_space(t, end);
        if (ch(t, j) == ',') {
            i = skip_space(t, j + 1); /* a pair must follow, else the reference fails too */
            continue;
        }
        Py_ssize_t k = space1(t, end);
        if (k >= 0 && (k = keyword(t, k, "WHERE")) >= 0 && (k = space1(t, k)) >= 0) {
            has_where = 1;
            i = k;
            break;
        }
        if (!at_end(t, end)) goto decline;
        break;
    }
    if (has_where) {
        int read = where_clause(t, i, old_values, &rowid, typing);
        if (read < 0) goto error;
        if (read == 0) goto decline;
    }
    result = make_parsed(StrUpdate, owner, table, new_values, old_values,
                         rowid ? rowid : Py_None, typing);
    goto done;
decline:
    result = Py_NewRef(Py_None);
    goto done;
error:
    result = NULL;
done:
    Py_XDECREF(owner);
    Py_XDECREF(table);
    Py_XDECREF(new_values);
    Py_XDECREF(old_values);
    Py_XDECREF(rowid);
    return result;
}

static PyObject *parse_delete(const Text *t, Py_ssize_t i, const Typing *typing) {
    /* \s*delete\s+from\s+TABLE ALIAS\s+where\s+ */
    i = keyword(t, i, "DELETE");
    if (i < 0 || (i = space1(t, i)) < 0) Py_RETURN_NONE;
    i = keyword(t, i, "FROM");
    if (i < 0 || (i = space1(t, i)) < 0) Py_RETURN_NONE;
    PyObject *owner = NULL, *table = NULL, *old_values = NULL, *rowid = NULL, *result = NULL;
    i = table_name(t, i, &owner, &table);
    if (i == -2) return NULL;
    if (i < 0) Py_RETURN_NONE;
    i = table_alias(t, i);
    if ((i = space1(t, i)) < 0) goto decline;
    if ((i = keyword(t, i, "WHERE")) < 0) goto decline;
    if ((i = space1(t, i)) < 0) goto decline;
    old_values = PyDict_New();
    if (old_values == NULL) goto error;
    int read = where_clause(t, i, old_values, &rowid, typing);
    if (read < 0) goto error;
    if (read == 0) goto decline;
    result = make_parsed(StrDelete, owner, table, NoValues, old_values, rowid ? rowid : Py_None,
                         typing);
    goto done;
decline:
    result = Py_NewRef(Py_None);
    goto done;
error:
    result = NULL;
done:
    Py_XDECREF(owner);
    Py_XDECREF(table);
    Py_XDECREF(old_values);
    Py_XDECREF(rowid);
    return result;
}

static int configured(void) {
    if (ParsedRedoType == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "extractor.parse._compiled: configure() not called");
        return 0;
    }
    return 1;
}

static PyObject *parse_strict(PyObject *self, PyObject *sql) {
    if (!configured()) return NULL;
    if (!PyUnicode_Check(sql)) Py_RETURN_NONE;
    Text t = {sql, PyUnicode_KIND(sql), PyUnicode_DATA(sql), PyUnicode_GET_LENGTH(sql), 0};
    Py_ssize_t i = skip_space(&t, 0);
    switch (upper(ch(&t, i))) {
        case 'I': return parse_insert(&t, i, NULL);
        case 'U': return parse_update(&t, i, NULL);
        case 'D': return parse_delete(&t, i, NULL);
        default: Py_RETURN_NONE;
    }
}

/* ---- typing ------------------------------------------------------------------------ */

enum Kind {
    K_FALLBACK = 0,
    K_STRING = 1,
    K_NUMBER_TEXT = 2,
    K_DECIMAL = 3,
    K_DOUBLE = 4,
    K_SINGLE = 5,
    K_DATE = 6,
    K_TIMESTAMP = 7,
    K_TIMESTAMP_TZ = 8,
    K_BYTES = 9,
    K_NULL_ONLY = 10, /* NULL, IS NULL and 'Unsupported Type' only (typed_value) */
};

/* flags (spec b for the datetime kinds, spec a for the number kinds' NLS check) */
#define NLS_DEFAULT 1
#define SIGNED_YEAR 2 /* the session format's year is SYYYY: one sign character before it */

static int equals(const Text *t, Py_ssize_t start, Py_ssize_t end, const char *text) {
    Py_ssize_t len = (Py_ssize_t)strlen(text);
    if (end - start != len) return 0;
    return literal_text(t, start, text) == end;
}

/* The body of '...' when the whole of [start, end) is one string literal: sets the body's
 * range and whether it has '' pairs. */
static int one_string(const Text *t, Py_ssize_t start, Py_ssize_t end, Py_ssize_t *body_start,
                      Py_ssize_t *body_end, int *doubled) {
    int dbl = 0;
    if (end - start < 2 || string_end(t, start, &dbl) != end) return 0;
    *body_start = start + 1;
    *body_end = end - 1;
    *doubled = dbl;
    return 1;
}


/* The body [start, end) of a string literal with '' read as ': one copy. */
static PyObject *unquote_range(const Text *t, Py_ssize_t start, Py_ssize_t end, int doubled) {
    if (!doubled) return PyUnicode_Substring(t->obj, t->offset + start, t->offset + end);
    if (t->kind == PyUnicode_1BYTE_KIND) {
        /* copy the runs between quotes; each '' becomes one ' */
        const Py_UCS1 *d = (const Py_UCS1 *)t->data;
        Py_UCS1 *buffer = PyMem_Malloc((size_t)(end - start) + 1);
        if (buffer == NULL) return PyErr_NoMemory();
        Py_ssize_t k = 0, i = start;
        while (i < end) {
            const Py_UCS1 *q = next_quote(d, i, end);
            Py_ssize_t stop = q == NULL ? end : (q - d) + 1; /* keeps one quote */
            memcpy(buffer + k, d + i, (size_t)(stop - i));
            k += stop - i;
            i = q == NULL ? end : stop + 1; /* skips its double */
        }
        PyObject *result = PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, buffer, k);
        PyMem_Free(buffer);
        return result;
    }
    /* the result's maximum character is the body's (only ASCII quotes are left out), so it
     * is canonical: the body may be part of a statement with wider characters elsewhere */
    Py_ssize_t pairs = 0;
    Py_UCS4 widest = 0;
    for (Py_ssize_t i = start; i < end; i++) {
        Py_UCS4 c = ch(t, i);
        if (c > widest) widest = c;
        if (c == '\'') {
            pairs++;
            i++;
        }
    }
    PyObject *result = PyUnicode_New(end - start - pairs, widest);
    if (result == NULL) return NULL;
    int kind = PyUnicode_KIND(result);
    void *out = PyUnicode_DATA(result);
    Py_ssize_t k = 0;
    for (Py_ssize_t i = start; i < end; i++) {
        Py_UCS4 c = ch(t, i);
        PyUnicode_WRITE(kind, out, k, c);
        k++;
        if (c == '\'') i++;
    }
    return result;
}

static int has_surrogate(const Text *t, Py_ssize_t start, Py_ssize_t end) {
    if (t->kind == PyUnicode_1BYTE_KIND) return 0;
    for (Py_ssize_t i = start; i < end; i++) {
        Py_UCS4 c = ch(t, i);
        if (c >= 0xD800 && c <= 0xDFFF) return 1;
    }
    return 0;
}

static int hex_value(Py_UCS4 c) {
    if (c >= '0' && c <= '9') return (int)(c - '0');
    if (c >= 'a' && c <= 'f') return (int)(c - 'a' + 10);
    if (c >= 'A' && c <= 'F') return (int)(c - 'A' + 10);
    return -1;
}

/* UNISTR('body'): the body unquoted ('' is '), then \XXXX is one UTF-16 unit, \\ a
 * backslash, anything else itself; a high surrogate unit followed by a low one is the
 * character they encode (the reference joins the pairs). Declines on a lone surrogate half,
 * a surrogate character in the body, and malformed escapes (the reference refuses them). */
static PyObject *unistr(const Text *t, Py_ssize_t start, Py_ssize_t end) {
    Py_ssize_t bs, be;
    int doubled;
    if (!one_string(t, start, end, &bs, &be, &doubled)) return NOT_HANDLED;
    Py_ssize_t n = be - bs;
    Py_UCS4 *units = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(Py_UCS4));
    if (units == NULL) return PyErr_NoMemory();
    Py_ssize_t count = 0;
    Py_UCS4 high = 0; /* a high surrogate unit waiting for its low half */
    for (Py_ssize_t i = bs; i < be;) {
        Py_UCS4 c = ch(t, i);
        if (c != '\\') {
            if (high || (c >= 0xD800 && c <= 0xDFFF)) goto decline;
            units[count++] = c;
            i += (c == '\'' && doubled) ? 2 : 1; /* one_string checked the pairs */
            continue;
        }
        if (ch(t, i + 1) == '\\' && i + 1 < be) {
            if (high) goto decline;
            units[count++] = '\\';
            i += 2;
            continue;
        }
        if (i + 4 >= be) goto decline;
        int h0 = hex_value(ch(t, i + 1)), h1 = hex_value(ch(t, i + 2));
        int h2 = hex_value(ch(t, i + 3)), h3 = hex_value(ch(t, i + 4));
        if (h0 < 0 || h1 < 0 || h2 < 0 || h3 < 0) goto decline;
        Py_UCS4 unit = (Py_UCS4)((h0 << 12) | (h1 << 8) | (h2 << 4) | h3);
        i += 5;
        if (unit >= 0xD800 && unit <= 0xDBFF) {
            if (high) goto decline;
            high = unit;
            continue;
        }
        if (unit >= 0xDC00 && unit <= 0xDFFF) {
            if (!high) goto decline;
            units[count++] = 0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00);
            high = 0;
            continue;
        }
        if (high) goto decline;
        units[count++] = unit;
    }
    if (high) goto decline;
    PyObject *result = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, units, count);
    PyMem_Free(units);
    return result;
decline:
    PyMem_Free(units);
    return NOT_HANDLED;
}

static PyObject *to_string(const Text *t) {
    Py_ssize_t n = t->n, bs, be;
    int doubled;
    if (one_string(t, 0, n, &bs, &be, &doubled)) {
        if (be == bs) Py_RETURN_NONE; /* '' is NULL in Oracle */
        if (has_surrogate(t, bs, be)) return NOT_HANDLED;
        return unquote_range(t, bs, be, doubled);
    }
    Py_ssize_t open = literal_text(t, 0, "UNISTR(");
    if (open >= 0 && ch(t, n - 1) == ')') return unistr(t, open, n - 1);
    if ((n == 12 && literal_text(t, 0, "EMPTY_CLOB()") == 12) ||
        (n == 12 && literal_text(t, 0, "EMPTY_BLOB()") == 12))
        return PyUnicode_New(0, 0); /* the reference: an empty string, not NULL */
    return NOT_HANDLED;
}

static PyObject *to_bytes(const Text *t) {
    Py_ssize_t open = literal_text(t, 0, "HEXTORAW('");
    if (open < 0 || t->n < open + 2 || ch(t, t->n - 1) != ')' || ch(t, t->n - 2) != '\'')
        return NOT_HANDLED;
    Py_ssize_t end = t->n - 2, len = end - open;
    if (len % 2) return NOT_HANDLED;
    PyObject *result = PyBytes_FromStringAndSize(NULL, len / 2);
    if (result == NULL) return NULL;
    char *out = PyBytes_AS_STRING(result);
    for (Py_ssize_t i = open, k = 0; i < end; i += 2, k++) {
        int hi = hex_value(ch(t, i)), lo = hex_value(ch(t, i + 1));
        if (hi < 0 || lo < 0) {
            Py_DECREF(result);
            return NOT_HANDLED;
        }
        out[k] = (char)((hi << 4) | lo);
    }
    return result;
}

/* The number text of a NUMBER-family literal: '...' or a bare number. Plain decimals only
 * ([-+]?digits[.digits] or [-+]?.digits, at most 100 characters). */
typedef struct {
    int negative;
    char digits[128]; /* integer digits without leading zeros, then the fraction digits */
    int int_len;      /* integer digits kept */
    int frac_len;     /* fraction digits kept (trailing zeros removed) */
} PlainNumber;

static int plain_number(const Text *t, PlainNumber *out) {
    Py_ssize_t start = 0, end = t->n;
    if (ch(t, 0) == '\'') {
        if (end < 3 || ch(t, end - 1) != '\'') return 0;
        start = 1;
        end -= 1;
    }
    if (end - start > 100) return 0;
    Py_ssize_t i = start;
    out->negative = 0;
    if (ch(t, i) == '-' || ch(t, i) == '+') {
        out->negative = ch(t, i) == '-';
        i++;
    }
    Py_ssize_t int_start = i;
    while (i < end && is_digit(ch(t, i))) i++;
    Py_ssize_t int_end = i;
    Py_ssize_t frac_start = i, frac_end = i;
    if (i < end && ch(t, i) == '.') {
        frac_start = ++i;
        while (i < end && is_digit(ch(t, i))) i++;
        frac_end = i;
    }
    if (i != end || (int_end == int_start && frac_end == frac_start)) return 0;
    while (int_start < int_end && ch(t, int_start) == '0') int_start++;
    while (frac_end > frac_start && ch(t, frac_end - 1) == '0') frac_end--;
    int k = 0;
    for (Py_ssize_t j = int_start; j < int_end; j++) out->digits[k++] = (char)ch(t, j);
    out->int_len = k;
    for (Py_ssize_t j = frac_start; j < frac_end; j++) out->digits[k++] = (char)ch(t, j);
    out->frac_len = k - out->int_len;
    return 1;
}

static PyObject *to_number_text(const Text *t) {
    PlainNumber number;
    if (!plain_number(t, &number)) return NOT_HANDLED;
    char text[140];
    int k = 0;
    if (number.int_len == 0 && number.frac_len == 0) return PyUnicode_FromString("0");
    if (number.negative) text[k++] = '-';
    if (number.int_len == 0) text[k++] = '0';
    memcpy(text + k, number.digits, (size_t)number.int_len);
    k += number.int_len;
    if (number.frac_len) {
        text[k++] = '.';
        memcpy(text + k, number.digits + number.int_len, (size_t)number.frac_len);
        k += number.frac_len;
    }
    return PyUnicode_FromStringAndSize(text, k);
}

static PyObject *to_decimal(const Text *t, long precision, long scale) {
    /* NUMBER(p, s) with 0 <= s < p <= 38: the reference quantizes to s places and refuses
     * more digits after the point or 10**(p-s) and beyond. With s < 0 (p - s <= 38) it
     * quantizes to whole numbers and refuses what is not a multiple of 10**-s. */
    if (precision > 38 || (scale >= 0 && precision <= scale) ||
        (scale < 0 && precision - scale > 38))
        return NOT_HANDLED;
    PlainNumber number;
    if (!plain_number(t, &number)) return NOT_HANDLED;
    if (number.frac_len > (scale > 0 ? scale : 0) || number.int_len > precision - scale)
        return NOT_HANDLED;
    if (scale < 0 && number.int_len > 0) {
        if (number.int_len < -scale) return NOT_HANDLED; /* not a multiple: refused there */
        for (int i = number.int_len + (int)scale; i < number.int_len; i++)
            if (number.digits[i] != '0') return NOT_HANDLED;
    }
    char text[140];
    int k = 0;
    if (number.negative) text[k++] = '-';
    if (number.int_len == 0) text[k++] = '0';
    memcpy(text + k, number.digits, (size_t)number.int_len);
    k += number.int_len;
    if (scale > 0) {
        text[k++] = '.';
        memcpy(text + k, number.digits + number.int_len, (size_t)number.frac_len);
        k += number.frac_len;
        for (long pad = number.frac_len; pad < scale; pad++) text[k++] = '0';
    }
    PyObject *string = PyUnicode_FromStringAndSize(text, k);
    if (string == NULL) return NULL;
    PyObject *result = PyObject_CallOneArg(DecimalType, string);
    Py_DECREF(string);
    return result;
}

/* 'Nan', 'Inf', '-Inf', 'Infinity', ... as Python's float() reads them, any case, and
 * without a sign for a NaN (float('-nan') keeps its sign bit: left to the reference). */
static PyObject *special_binary(const Text *t, Py_ssize_t start, Py_ssize_t end) {
    char word[10];
    Py_ssize_t n = end - start;
    if (n < 3 || n > 9) return NOT_HANDLED;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = ch(t, start + i);
        if (c == 0 || c > 127) return NOT_HANDLED; /* a NUL would end the word for strcmp */
        word[i] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    word[n] = 0;
    const char *body = word[0] == '+' || word[0] == '-' ? word + 1 : word;
    double sign = word[0] == '-' ? -1.0 : 1.0;
    if (strcmp(body, "inf") == 0 || strcmp(body, "infinity") == 0)
        return PyFloat_FromDouble(sign * Py_HUGE_VAL);
    if (strcmp(word, "nan") == 0 || strcmp(word, "+nan") == 0) return PyFloat_FromDouble(Py_NAN);
    return NOT_HANDLED;
}

static PyObject *to_binary(const Text *t, int single) {
    Py_ssize_t start = 0, end = t->n;
    if (ch(t, 0) == '\'') {
        if (end < 3 || ch(t, end - 1) != '\'') return NOT_HANDLED;
        start = 1;
        end -= 1;
        Py_UCS4 first = ch(t, start);
        if (first == 'N' || first == 'n' || first == 'I' || first == 'i' ||
            ((first == '-' || first == '+') && end - start > 1 &&
             (ch(t, start + 1) == 'I' || ch(t, start + 1) == 'i')))
            return special_binary(t, start, end);
    }
    /* the whole text must be one NUMBER of the grammar (no Nan, Inf, blanks, '_') */
    if (end - start > 60 || number(t, start) != end) return NOT_HANDLED;
    char buffer[64];
    Py_ssize_t n = end - start;
    for (Py_ssize_t i = 0; i < n; i++) buffer[i] = (char)ch(t, start + i);
    buffer[n] = 0;
    char *parsed_end = NULL;
    double value = PyOS_string_to_double(buffer, &parsed_end, NULL);
    if (value == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return NOT_HANDLED;
    }
    if (parsed_end != buffer + n) return NOT_HANDLED;
    if (single) {
        float narrowed = (float)value;
        if (isinf(narrowed) && !isinf(value)) return NOT_HANDLED; /* reference: overflow */
        value = (double)narrowed;
    }
    return PyFloat_FromDouble(value);
}

/* ---- datetimes in the default NLS layouts ------------------------------------------ */

typedef struct {
    int year, month, day, hour, minute, second;
    long nanosecond;
    int offset_minutes; /* for TZ */
} Moment;

static int digits_at(const Text *t, Py_ssize_t i, int count, int *value) {
    int v = 0;
    for (int k = 0; k < count; k++) {
        Py_UCS4 c = ch(t, i + k);
        if (!is_digit(c)) return 0;
        v = v * 10 + (int)(c - '0');
    }
    *value = v;
    return 1;
}

static int days_in_month(int year, int month) {
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month == 2 && (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0))) return 29;
    return days[month - 1];
}

/* YYYY-MM-DD HH:MI:SS at [i, i+19) with every field in range (year >= 1000) */
static int date_time_at(const Text *t, Py_ssize_t i, Moment *m) {
    if (!digits_at(t, i, 4, &m->year) || ch(t, i + 4) != '-' ||
        !digits_at(t, i + 5, 2, &m->month) || ch(t, i + 7) != '-' ||
        !digits_at(t, i + 8, 2, &m->day) || ch(t, i + 10) != ' ' ||
        !digits_at(t, i + 11, 2, &m->hour) || ch(t, i + 13) != ':' ||
        !digits_at(t, i + 14, 2, &m->minute) || ch(t, i + 16) != ':' ||
        !digits_at(t, i + 17, 2, &m->second))
        return 0;
    if (m->year < 1000 || m->month < 1 || m->month > 12 || m->day < 1 ||
        m->day > days_in_month(m->year, m->month) || m->hour > 23 || m->minute > 59 ||
        m->second > 59)
        return 0;
    m->nanosecond = 0;
    m->offset_minutes = 0;
    return 1;
}

/* .F{1,9} at i: sets the nanoseconds, returns the end or -1 */
static Py_ssize_t fraction_at(const Text *t, Py_ssize_t i, Moment *m) {
    if (ch(t, i) != '.') return -1;
    long nanos = 0;
    int count = 0;
    i++;
    while (is_digit(ch(t, i)) && count < 10) {
        nanos = nanos * 10 + (long)(ch(t, i) - '0');
        count++;
        i++;
    }
    if (count == 0 || count > 9) return -1;
    for (int k = count; k < 9; k++) nanos *= 10;
    m->nanosecond = nanos;
    return i;
}

/* NAME('<value>') or NAME('<value>', '<format>') or '<value>': the value's range */
static int call_argument(const Text *t, const char *name, Py_ssize_t *vs, Py_ssize_t *ve,
                         Py_ssize_t *fs, Py_ssize_t *fe) {
    Py_ssize_t n = t->n;
    *fs = *fe = -1;
    if (ch(t, 0) == '\'') {
        Py_ssize_t close = string_lit(t, 0);
        if (close != n) return 0;
        *vs = 1;
        *ve = n - 1;
        return 1;
    }
    Py_ssize_t i = literal_text(t, 0, name);
    if (i < 0 || ch(t, i) != '(' || ch(t, i + 1) != '\'' || ch(t, n - 1) != ')') return 0;
    Py_ssize_t close = string_lit(t, i + 1);
    if (close < 0) return 0;
    *vs = i + 2;
    *ve = close - 1;
    if (close == n - 1) return 1;
    if (ch(t, close) != ',' || ch(t, close + 1) != ' ') return 0;
    Py_ssize_t format_close = string_lit(t, close + 2);
    if (format_close != n - 1) return 0;
    *fs = close + 3;
    *fe = format_close - 1;
    return 1;
}

static int has_apostrophe(const Text *t, Py_ssize_t start, Py_ssize_t end) {
    for (Py_ssize_t i = start; i < end; i++)
        if (ch(t, i) == '\'') return 1;
    return 0;
}

/* Where the year starts in a value written under a session format with these flags: past
 * SYYYY's sign position when it holds a space (an AD year); -1 for anything else there (a
 * '-' is a BC year: left to the reference, which refuses it). */
static Py_ssize_t year_start(const Text *t, Py_ssize_t vs, int flags) {
    if (!(flags & SIGNED_YEAR)) return vs;
    return ch(t, vs) == ' ' ? vs + 1 : -1;
}

static PyObject *to_date(const Text *t, int flags) {
    Py_ssize_t vs, ve, fs, fe;
    if (!call_argument(t, "TO_DATE", &vs, &ve, &fs, &fe)) return NOT_HANDLED;
    if (fs >= 0) { /* the format LogMiner wrote beside the value: the session's */
        if (equals(t, fs, fe, "YYYY-MM-DD HH24:MI:SS"))
            flags = NLS_DEFAULT;
        else if (equals(t, fs, fe, "SYYYY-MM-DD HH24:MI:SS"))
            flags = NLS_DEFAULT | SIGNED_YEAR;
        else
            return NOT_HANDLED;
    } else if (!(flags & NLS_DEFAULT)) {
        return NOT_HANDLED;
    }
    vs = year_start(t, vs, flags);
    Moment m;
    if (vs < 0 || ve - vs != 19 || !date_time_at(t, vs, &m)) return NOT_HANDLED;
    return PyDateTimeAPI->DateTime_FromDateAndTime(m.year, m.month, m.day, m.hour, m.minute,
                                                   m.second, 0, Py_None,
                                                   PyDateTimeAPI->DateTimeType);
}

static PyObject *to_timestamp(const Text *t, long precision, int flags) {
    Py_ssize_t vs, ve, fs, fe;
    if (!(flags & NLS_DEFAULT) || precision < 0 || precision > 9) return NOT_HANDLED;
    if (!call_argument(t, "TO_TIMESTAMP", &vs, &ve, &fs, &fe) || fs >= 0) return NOT_HANDLED;
    if (has_apostrophe(t, vs, ve)) return NOT_HANDLED;
    vs = year_start(t, vs, flags);
    Moment m;
    if (vs < 0 || ve - vs < 21 || !date_time_at(t, vs, &m) || fraction_at(t, vs + 19, &m) != ve)
        return NOT_HANDLED;
    long unit = 1;
    for (long k = precision; k < 9; k++) unit *= 10;
    if (m.nanosecond % unit) return NOT_HANDLED; /* the reference refuses it */
    if (precision <= 6) {
        return PyDateTimeAPI->DateTime_FromDateAndTime(
            m.year, m.month, m.day, m.hour, m.minute, m.second, (int)(m.nanosecond / 1000),
            Py_None, PyDateTimeAPI->DateTimeType);
    }
    char text[40];
    int k = snprintf(text, sizeof text, "%04d-%02d-%02d %02d:%02d:%02d.%09ld", m.year,
                     m.month, m.day, m.hour, m.minute, m.second, m.nanosecond);
    return PyUnicode_FromStringAndSize(text, k - (9 - precision));
}

static long days_from_civil(long y, long m, long d) {
    y -= m <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    long yoe = y - era * 400;
    long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static void civil_from_days(long z, int *y, int *m, int *d) {
    z += 719468;
    long era = (z >= 0 ? z : z - 146096) / 146097;
    long doe = z - era * 146097;
    long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    long mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = (int)(yoe + era * 400 + (*m <= 2));
}

static PyObject *to_timestamp_tz(const Text *t, long precision, int flags) {
    Py_ssize_t vs, ve, fs, fe;
    if (!(flags & NLS_DEFAULT) || precision < 0 || precision > 6) return NOT_HANDLED;
    if (!call_argument(t, "TO_TIMESTAMP_TZ", &vs, &ve, &fs, &fe) || fs >= 0) return NOT_HANDLED;
    if (has_apostrophe(t, vs, ve)) return NOT_HANDLED;
    vs = year_start(t, vs, flags);
    Moment m;
    if (vs < 0 || ve - vs < 28 || !date_time_at(t, vs, &m)) return NOT_HANDLED;
    Py_ssize_t i = fraction_at(t, vs + 19, &m);
    /* ' +HH:MM' */
    if (i < 0 || ve - i != 7 || ch(t, i) != ' ') return NOT_HANDLED;
    Py_UCS4 sign = ch(t, i + 1);
    int hours, minutes;
    if ((sign != '+' && sign != '-') || !digits_at(t, i + 2, 2, &hours) ||
        ch(t, i + 4) != ':' || !digits_at(t, i + 5, 2, &minutes) || hours > 23 || minutes > 59)
        return NOT_HANDLED;
    long unit = 1;
    for (long k = precision; k < 9; k++) unit *= 10;
    if (m.nanosecond % unit) return NOT_HANDLED;
    long offset = (sign == '-' ? -1 : 1) * (hours * 60L + minutes);
    long minutes_of_day = m.hour * 60L + m.minute - offset;
    long day = days_from_civil(m.year, m.month, m.day);
    long shift = minutes_of_day >= 0 ? minutes_of_day / 1440 : -((-minutes_of_day + 1439) / 1440);
    minutes_of_day -= shift * 1440;
    day += shift;
    int year, month, dom;
    civil_from_days(day, &year, &month, &dom);
    if (year < 1 || year > 9999) return NOT_HANDLED;
    return PyDateTimeAPI->DateTime_FromDateAndTime(
        year, month, dom, (int)(minutes_of_day / 60), (int)(minutes_of_day % 60), m.second,
        (int)(m.nanosecond / 1000), UtcZone, PyDateTimeAPI->DateTimeType);
}

/* The typed value of a literal's text by a spec's kind, or NOT_HANDLED. */
static PyObject *fast_value(const Text *t, long kind, long a, long b) {
    if (t->n == 0) return NOT_HANDLED;
    switch (kind) {
        case K_STRING: return to_string(t);
        case K_NUMBER_TEXT: return a & NLS_DEFAULT ? to_number_text(t) : NOT_HANDLED;
        case K_DECIMAL: /* a = precision << 8 | (scale & 0xFF), the scale signed */
            return b & NLS_DEFAULT ? to_decimal(t, a >> 8, (signed char)(a & 0xFF)) : NOT_HANDLED;
        case K_DOUBLE: return a & NLS_DEFAULT ? to_binary(t, 0) : NOT_HANDLED;
        case K_SINGLE: return a & NLS_DEFAULT ? to_binary(t, 1) : NOT_HANDLED;
        case K_DATE: return to_date(t, (int)(b & (NLS_DEFAULT | SIGNED_YEAR)));
        case K_TIMESTAMP: return to_timestamp(t, a, (int)(b & (NLS_DEFAULT | SIGNED_YEAR)));
        case K_TIMESTAMP_TZ: return to_timestamp_tz(t, a, (int)(b & (NLS_DEFAULT | SIGNED_YEAR)));
        case K_BYTES: return to_bytes(t);
        default: return NOT_HANDLED;
    }
}

/* A spec (kind, a, b) read into longs; 0 with an exception set when it is not one. */
static int read_spec(PyObject *spec, long *kind, long *a, long *b) {
    if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) != 3) {
        PyErr_SetString(PyExc_TypeError, "a typing spec is a (kind, a, b) tuple");
        return 0;
    }
    *kind = PyLong_AsLong(PyTuple_GET_ITEM(spec, 0));
    *a = PyLong_AsLong(PyTuple_GET_ITEM(spec, 1));
    *b = PyLong_AsLong(PyTuple_GET_ITEM(spec, 2));
    return !PyErr_Occurred();
}

/* What the reference's _convert reads before any converter (kind != K_FALLBACK): NULL and
 * IS NULL are None, Unsupported Type is UNSUPPORTED; else the fast shapes, or NOT_HANDLED. */
static PyObject *fast_typed(const Text *t, long kind, long a, long b) {
    Py_ssize_t n = t->n;
    Py_UCS4 first = ch(t, 0);
    if ((first == 'N' && equals(t, 0, n, "NULL")) || (first == 'I' && equals(t, 0, n, "IS NULL")))
        Py_RETURN_NONE;
    if (first == 'U' && equals(t, 0, n, "Unsupported Type")) return Py_NewRef(Unsupported);
    return fast_value(t, kind, a, b);
}

static PyObject *call_fallback(PyObject *name, PyObject *literal, PyObject *fallback,
                               PyObject *const *extra, Py_ssize_t nextra) {
    PyObject *args[8];
    if (nextra > 6) {
        PyErr_SetString(PyExc_TypeError, "typed_image: at most 6 extra arguments");
        return NULL;
    }
    args[0] = name;
    args[1] = literal;
    for (Py_ssize_t k = 0; k < nextra; k++) args[2 + k] = extra[k];
    return PyObject_Vectorcall(fallback, args, 2 + nextra, NULL);
}

static PyObject *typed_value(PyObject *name, PyObject *literal, PyObject *spec,
                             PyObject *fallback, PyObject *const *extra, Py_ssize_t nextra) {
    if (spec != NULL && PyTuple_Check(literal) && PyTuple_GET_SIZE(literal) == 1) {
        PyObject *text = PyTuple_GET_ITEM(literal, 0);
        long kind, a, b;
        if (!read_spec(spec, &kind, &a, &b)) return NULL;
        if (kind != K_FALLBACK && PyUnicode_Check(text)) {
            Text t = {text, PyUnicode_KIND(text), PyUnicode_DATA(text),
                      PyUnicode_GET_LENGTH(text), 0};
            PyObject *result = fast_typed(&t, kind, a, b);
            if (result != NULL || PyErr_Occurred()) return result;
        }
    }
    return call_fallback(name, literal, fallback, extra, nextra);
}

static PyObject *typed_image(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!configured()) return NULL;
    if (nargs < 3 || !PyDict_Check(args[0]) || !PyDict_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError,
                        "typed_image(literals: dict, specs: dict, fallback, *fallback_args)");
        return NULL;
    }
    PyObject *literals = args[0], *specs = args[1], *fallback = args[2];
    PyObject *typed = PyDict_New();
    if (typed == NULL) return NULL;
    PyObject *name, *literal;
    Py_ssize_t position = 0;
    while (PyDict_Next(literals, &position, &name, &literal)) {
        Py_INCREF(name);
        Py_INCREF(literal);
        PyObject *spec = PyDict_GetItemWithError(specs, name); /* borrowed */
        PyObject *value = spec == NULL && PyErr_Occurred()
                              ? NULL
                              : typed_value(name, literal, spec, fallback, args + 3, nargs - 3);
        int failed = value == NULL || PyDict_SetItem(typed, name, value) < 0;
        Py_XDECREF(value);
        Py_DECREF(name);
        Py_DECREF(literal);
        if (failed) {
            Py_DECREF(typed);
            return NULL;
        }
    }
    return typed;
}

/* ---- parsing and typing in one pass --------------------------------------------------- */

struct Typing {
    PyObject *specs;    /* column name -> (kind, a, b) of every column of the table */
    PyObject *fallback; /* the reference: fallback(name, literal, *extra) */
    PyObject *const *extra;
    Py_ssize_t nextra;
    Py_UCS1 *scratch; /* as long as the statement: where scan_string unquotes (1-byte text) */
};

/* The body of the '...' literal at i of a 1-byte text with '' read as ', read in the same
 * pass that finds its end (*stop, after the closing quote); NOT_HANDLED when unterminated. */
static PyObject *scan_string(const Text *t, Py_ssize_t i, Py_UCS1 *scratch, Py_ssize_t *stop) {
    const Py_UCS1 *d = (const Py_UCS1 *)t->data;
    Py_ssize_t n = t->n, p = i + 1, k = 0;
    for (;;) {
        const Py_UCS1 *q = next_quote(d, p, n);
        if (q == NULL) return NOT_HANDLED;
        Py_ssize_t at = q - d;
        if (at + 1 < n && d[at + 1] == '\'') { /* '' : the run and one quote */
            memcpy(scratch + k, d + p, (size_t)(at + 1 - p));
            k += at + 1 - p;
            p = at + 2;
            continue;
        }
        *stop = at + 1;
        if (k == 0) return PyUnicode_Substring(t->obj, t->offset + i + 1, t->offset + at);
        memcpy(scratch + k, d + p, (size_t)(at - p));
        return PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, scratch, k + at - p);
    }
}

/* The value at `start` for column `name` and where it ends (*end): 1, 0 when the text does
 * not read there (the statement is declined), -1 on error. As value() then value_at(), but
 * a string column's one string literal in a 1-byte statement is unquoted in the pass that
 * finds its end (scan_string). */
static int read_value(const Text *t, Py_ssize_t start, PyObject *name, const Typing *typing,
                      Py_ssize_t *end, PyObject **result) {
    if (typing != NULL && typing->scratch != NULL && ch(t, start) == '\'') {
        PyObject *spec = PyDict_GetItemWithError(typing->specs, name); /* borrowed */
        long kind, a, b;
        if (spec != NULL && read_spec(spec, &kind, &a, &b) && kind == K_STRING) {
            Py_ssize_t stop = start, j = start; /* stop is set only when the string ends */
            PyObject *string = scan_string(t, start, typing->scratch, &stop);
            if (string == NULL && PyErr_Occurred()) return -1;
            if (string != NULL) j = skip_space(t, stop);
            if (string != NULL && (ch(t, j) != '|' || ch(t, j + 1) != '|')) {
                *end = stop;
                if (stop - start == 2) { /* '' is NULL in Oracle */
                    Py_DECREF(string);
                    string = Py_NewRef(Py_None);
                }
                *result = string;
                return 1;
            }
            Py_XDECREF(string); /* unterminated, or a concatenation: as below */
        }
        if (PyErr_Occurred()) return -1;
    }
    int string_shape;
    *end = value(t, start, &string_shape);
    if (*end < 0) return 0;
    *result = value_at(t, start, *end, string_shape, name, typing);
    return *result == NULL ? -1 : 1;
}

/* The spec of column `name` in *kind, *a, *b: 1, or 0 with an exception set (a KeyError
 * when the specs do not hold the column: parse_typed then declines the statement). */
static int column_spec(const Typing *typing, PyObject *name, long *kind, long *a, long *b) {
    PyObject *spec = PyDict_GetItemWithError(typing->specs, name); /* borrowed */
    if (spec == NULL) {
        if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, name);
        return 0;
    }
    return read_spec(spec, kind, a, b);
}

/* The value of column `name` whose literal is [start, end) of the statement (string_shape
 * as value() sets it): the Literal (parse_strict), or typed in place as typed_value types
 * that Literal (parse_typed). */
static PyObject *value_at(const Text *t, Py_ssize_t start, Py_ssize_t end, int string_shape,
                          PyObject *name, const Typing *typing) {
    if (typing == NULL) return new_literal(t, start, end);
    long kind, a, b;
    if (!column_spec(typing, name, &kind, &a, &b)) return NULL;
    if (kind == K_STRING && string_shape >= 0) {
        /* to_string of one string literal, whose quotes the scanner has read already */
        if (end - start == 2) Py_RETURN_NONE; /* '' is NULL in Oracle */
        if (!has_surrogate(t, start + 1, end - 1))
            return unquote_range(t, start + 1, end - 1, string_shape);
    } else if (kind != K_FALLBACK) {
        Text view = {t->obj, t->kind, (const char *)t->data + start * t->kind, end - start,
                     t->offset + start};
        PyObject *result = fast_typed(&view, kind, a, b);
        if (result != NULL || PyErr_Occurred()) return result;
    }
    PyObject *literal = new_literal(t, start, end);
    if (literal == NULL) return NULL;
    PyObject *result = call_fallback(name, literal, typing->fallback, typing->extra,
                                     typing->nextra);
    Py_DECREF(literal);
    return result;
}

/* An IS NULL predicate's value: IS_NULL_LITERAL (parse_strict), or typed as typed_value
 * types it (parse_typed). */
static PyObject *is_null_value(PyObject *name, const Typing *typing) {
    if (typing == NULL) return Py_NewRef(IsNullLiteral);
    long kind, a, b;
    if (!column_spec(typing, name, &kind, &a, &b)) return NULL;
    if (kind != K_FALLBACK) Py_RETURN_NONE;
    return call_fallback(name, IsNullLiteral, typing->fallback, typing->extra, typing->nextra);
}

/* parse_typed(sql, specs, fallback, *fallback_args) -> (new, old, rowid) or None.
 *
 * What parse_strict(sql) then typed_image of each image give, in one pass and without a
 * Literal per value: each value is typed where it stands in the statement. None whenever
 * that is not certain: parse_strict would decline, a column is not in specs (the caller's
 * dictionary check decides), or typing raised (the reference path then raises the same
 * error, or reads the statement another way). Only a BaseException that is not an
 * Exception (KeyboardInterrupt, SystemExit) propagates. */
static PyObject *parse_typed(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!configured()) return NULL;
    if (nargs < 3 || !PyDict_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError,
                        "parse_typed(sql, specs: dict, fallback, *fallback_args)");
        return NULL;
    }
    if (nargs - 3 > 6) {
        PyErr_SetString(PyExc_TypeError, "parse_typed: at most 6 extra arguments");
        return NULL;
    }
    PyObject *sql = args[0];
    if (!PyUnicode_Check(sql)) Py_RETURN_NONE;
    Text t = {sql, PyUnicode_KIND(sql), PyUnicode_DATA(sql), PyUnicode_GET_LENGTH(sql), 0};
    Py_UCS1 on_stack[4096], *scratch = NULL;
    if (t.kind == PyUnicode_1BYTE_KIND) {
        /* without one (no memory), strings take the two-pass path */
        scratch = t.n <= (Py_ssize_t)sizeof(on_stack) ? on_stack : PyMem_Malloc((size_t)t.n);
    }
    Typing typing = {args[1], args[2], args + 3, nargs - 3, scratch};
    Py_ssize_t i = skip_space(&t, 0);
    PyObject *result;
    switch (upper(ch(&t, i))) {
        case 'I': result = parse_insert(&t, i, &typing); break;
        case 'U': result = parse_update(&t, i, &typing); break;
        case 'D': result = parse_delete(&t, i, &typing); break;
        default: result = Py_NewRef(Py_None);
    }
    if (scratch != NULL && scratch != on_stack) PyMem_Free(scratch);
    if (result != NULL) return result;
    if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_Exception)) return NULL;
    PyErr_Clear();
    Py_RETURN_NONE;
}

/* ---- redo positions ---------------------------------------------------------------- */

/* The hex digits of one RS_ID field in [s, e): at least one, at most 16 after leading
 * zeros, none other; -1 when not so. */
static int hex_field(const char *s, const char *e, unsigned long long *out) {
    if (e <= s) return -1;
    while (e - s > 1 && *s == '0') s++;
    if (e - s > 16) return -1;
    unsigned long long value = 0;
    for (; s < e; s++) {
        int digit = hex_value((Py_UCS4)(unsigned char)*s);
        if (digit < 0) return -1;
        value = value << 4 | (unsigned long long)digit;
    }
    *out = value;
    return 0;
}

/* packed_redo_position(rs_id, ssn) -> int: RedoPosition.of(rs_id, ssn).packed() for an
 * ASCII RS_ID of the form [spaces]0xSEQ.BLOCK.OFFSET[spaces] with fields in range; None for
 * anything else (the reference reads it, or raises). */
static PyObject *packed_redo_position(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "packed_redo_position(rs_id, ssn)");
        return NULL;
    }
    if (!PyUnicode_CheckExact(args[0]) || !PyUnicode_IS_ASCII(args[0]) ||
        !PyLong_CheckExact(args[1]))
        Py_RETURN_NONE;
    int overflow = 0;
    long long ssn = PyLong_AsLongLongAndOverflow(args[1], &overflow);
    if (overflow || ssn < 0 || ssn > 0xFFFFFFFFLL) Py_RETURN_NONE;
    Py_ssize_t n = PyUnicode_GET_LENGTH(args[0]);
    const char *s = (const char *)PyUnicode_1BYTE_DATA(args[0]), *e = s + n;
    while (s < e && (*s == ' ' || (*s >= '\t' && *s <= '\r'))) s++;
    while (e > s && (e[-1] == ' ' || (e[-1] >= '\t' && e[-1] <= '\r'))) e--;
    if (e - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
    const char *dot1 = memchr(s, '.', (size_t)(e - s));
    if (dot1 == NULL) Py_RETURN_NONE;
    const char *dot2 = memchr(dot1 + 1, '.', (size_t)(e - dot1 - 1));
    if (dot2 == NULL) Py_RETURN_NONE;
    unsigned long long sequence, block, offset;
    if (hex_field(s, dot1, &sequence) || hex_field(dot1 + 1, dot2, &block) ||
        hex_field(dot2 + 1, e, &offset))
        Py_RETURN_NONE;
    if (sequence > 0xFFFFFFFFULL || block > 0xFFFFFFFFULL || offset > 0xFFFFULL)
        Py_RETURN_NONE;
    /* 112 bits: sequence << 80 | block << 48 | offset << 32 | ssn, as high and low 64 bits */
    unsigned long long high = sequence << 16 | block >> 16;
    unsigned long long low = (block & 0xFFFFULL) << 48 | offset << 32 | (unsigned long long)ssn;
    if (high == 0) return PyLong_FromUnsignedLongLong(low);
    PyObject *high_long = PyLong_FromUnsignedLongLong(high);
    if (high_long == NULL) return NULL;
    PyObject *shift = PyLong_FromLong(64);
    if (shift == NULL) {
        Py_DECREF(high_long);
        return NULL;
    }
    PyObject *shifted = PyNumber_Lshift(high_long, shift);
    Py_DECREF(high_long);
    Py_DECREF(shift);
    if (shifted == NULL) return NULL;
    PyObject *low_long = PyLong_FromUnsignedLongLong(low);
    if (low_long == NULL) {
        Py_DECREF(shifted);
        return NULL;
    }
    PyObject *packed = PyNumber_Or(shifted, low_long);
    Py_DECREF(shifted);
    Py_DECREF(low_long);
    return packed;
}

/* ---- columns of change rows (landing) ---------------------------------------------- */

/* A list of `count` Nones: a lookup or an attribute can run Python code that reaches the
 * list (gc.get_objects()), which must never find an item unset. */
static PyObject *none_list(Py_ssize_t count) {
    PyObject *list = PyList_New(count);
    if (list == NULL) return NULL;
    for (Py_ssize_t i = 0; i < count; i++) PyList_SET_ITEM(list, i, Py_NewRef(Py_None));
    return list;
}

/* `width` lists of `count` Nones each (columns being filled). */
static PyObject *none_columns(Py_ssize_t width, Py_ssize_t count) {
    PyObject *columns = none_list(width);
    if (columns == NULL) return NULL;
    for (Py_ssize_t k = 0; k < width; k++) {
        PyObject *column = none_list(count);
        if (column == NULL || PyList_SetItem(columns, k, column) < 0) {
            Py_DECREF(columns);
            return NULL;
        }
    }
    return columns;
}

/* columns_of(rows: list, names: tuple) -> one list per name: [row.get(name) for row in rows]
 * (None where a row lacks the name), in one pass over the rows; None when a row is not
 * exactly a dict (the caller then reads the rows itself). */
static PyObject *columns_of(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyList_Check(args[0]) || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "columns_of(rows: list, names: tuple)");
        return NULL;
    }
    /* a lookup can run Python code (a key's __eq__) that changes the list: read a copy */
    PyObject *rows = PyList_AsTuple(args[0]), *names = args[1], *columns = NULL;
    if (rows == NULL) return NULL;
    Py_ssize_t count = PyTuple_GET_SIZE(rows), width = PyTuple_GET_SIZE(names);
    for (Py_ssize_t i = 0; i < count; i++) {
        if (!PyDict_CheckExact(PyTuple_GET_ITEM(rows, i))) {
            Py_DECREF(rows);
            Py_RETURN_NONE;
        }
    }
    columns = none_columns(width, count);
    if (columns == NULL) goto error;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *row = PyTuple_GET_ITEM(rows, i); /* the tuple holds it */
        for (Py_ssize_t k = 0; k < width; k++) {
            PyObject *value = PyDict_GetItemWithError(row, PyTuple_GET_ITEM(names, k));
            if (value == NULL) {
                if (PyErr_Occurred()) goto error;
                continue; /* stays None */
            }
            PyList_SetItem(PyList_GET_ITEM(columns, k), i, Py_NewRef(value));
        }
    }
    Py_DECREF(rows);
    return columns;
error:
    Py_DECREF(rows);
    Py_XDECREF(columns);
    return NULL;
}

/* attributes_of(objects: list, names: tuple) -> one list per name: [getattr(o, name) for o
 * in objects], in one pass over the objects (landing: the change records' metadata). */
static PyObject *attributes_of(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyList_Check(args[0]) || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "attributes_of(objects: list, names: tuple)");
        return NULL;
    }
    /* an attribute can run Python code that changes the list: read a copy */
    PyObject *objects = PyList_AsTuple(args[0]), *names = args[1], *columns = NULL;
    if (objects == NULL) return NULL;
    Py_ssize_t count = PyTuple_GET_SIZE(objects), width = PyTuple_GET_SIZE(names);
    columns = none_columns(width, count);
    if (columns == NULL) goto error;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *object = PyTuple_GET_ITEM(objects, i);
        for (Py_ssize_t k = 0; k < width; k++) {
            PyObject *value = PyObject_GetAttr(object, PyTuple_GET_ITEM(names, k));
            if (value == NULL) goto error;
            PyList_SetItem(PyList_GET_ITEM(columns, k), i, value); /* releases the None */
        }
    }
    Py_DECREF(objects);
    return columns;
error:
    Py_DECREF(objects);
    Py_XDECREF(columns);
    return NULL;
}

/* ---- Arrow buffers of a column (landing) ------------------------------------------- */

/* Kinds of arrow_buffers, as extractor/land/arrow_buffers.py names them. */
enum { BUF_INT64 = 1, BUF_DECIMAL128 = 2, BUF_TIMESTAMP_US = 3, BUF_STRING = 4, BUF_BINARY = 5 };

typedef __int128 int128;

/* 10**k as int128 for k in 0..38. */
static int128 power_of_ten(int k) {
    int128 p = 1;
    while (k-- > 0) p *= 10;
    return p;
}

/* A Python int as int128: 1; 0 when it does not fit; -1 on error. */
static int int_as_int128(PyObject *v, int128 *out) {
    int overflow = 0;
    long long small = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (small == -1 && PyErr_Occurred()) return -1;
    if (!overflow) {
        *out = small;
        return 1;
    }
#if PY_VERSION_HEX >= 0x030D0000
    Py_ssize_t needed = PyLong_AsNativeBytes(v, out, (Py_ssize_t)sizeof *out, -1);
    if (needed < 0) return -1;
    return needed <= (Py_ssize_t)sizeof *out;
#else
    if (_PyLong_AsByteArray((PyLongObject *)v, (unsigned char *)out, sizeof *out,
                            PY_LITTLE_ENDIAN, 1) < 0) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
        PyErr_Clear();
        return 0;
    }
    return 1;
#endif
}

/* The unscaled int128 of a Decimal or int at `scale` digits after the point, when its value
 * is plain (str() without exponent, not NaN or infinite), has at most `scale` digits after
 * the point and fewer than `precision` digits at that scale: 1; 0 to decline; -1 on error. */
static int decimal_unscaled(PyObject *v, int precision, int scale, int128 *out) {
    int128 limit = power_of_ten(precision);
    if (PyLong_CheckExact(v)) {
        int128 whole;
        int got = int_as_int128(v, &whole);
        if (got != 1) return got;
        int128 bound = power_of_ten(precision - scale);
        if (whole >= bound || whole <= -bound) return 0;
        *out = whole * power_of_ten(scale);
        return 1;
    }
    if (Py_TYPE(v) != (PyTypeObject *)DecimalType) return 0;
    PyObject *text = PyObject_Str(v);
    if (text == NULL) return -1;
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(text, &n);
    if (s == NULL) {
        Py_DECREF(text);
        return -1;
    }
    Py_ssize_t i = 0;
    int negative = 0, digits = 0, fraction = -1, result = 0;
    int128 unscaled = 0;
    if (i < n && s[i] == '-') {
        negative = 1;
        i++;
    }
    if (i >= n) goto end;
    for (; i < n; i++) {
        char c = s[i];
        if (c >= '0' && c <= '9') {
            if (unscaled == 0 && c == '0') {
                if (fraction >= 0) fraction++;
                continue; /* leading zeros count no digit */
            }
            if (++digits > 38) goto end;
            unscaled = unscaled * 10 + (c - '0');
            if (fraction >= 0) fraction++;
        } else if (c == '.' && fraction < 0) {
            fraction = 0;
        } else {
            goto end; /* an exponent, NaN, Infinity: the reference reads it */
        }
    }
    if (fraction < 0) fraction = 0;
    if (fraction > scale) goto end;
    if (digits + (scale - fraction) > 38) goto end;
    unscaled *= power_of_ten(scale - fraction);
    if (unscaled >= limit) goto end;
    *out = negative ? -unscaled : unscaled;
    result = 1;
end:
    Py_DECREF(text);
    return result;
}

/* Microseconds since 1970-01-01 of a datetime that is naive or in UTC: 1; 0 to decline. */
static int timestamp_micros(PyObject *v, int64_t *out) {
    if (!PyDateTime_CheckExact(v)) return 0;
    PyObject *zone = PyDateTime_DATE_GET_TZINFO(v);
    if (zone != Py_None && zone != UtcZone) return 0;
    long days = days_from_civil(PyDateTime_GET_YEAR(v), PyDateTime_GET_MONTH(v),
                                PyDateTime_GET_DAY(v));
    int64_t seconds = (int64_t)days * 86400 + PyDateTime_DATE_GET_HOUR(v) * 3600 +
                      PyDateTime_DATE_GET_MINUTE(v) * 60 + PyDateTime_DATE_GET_SECOND(v);
    *out = seconds * 1000000 + PyDateTime_DATE_GET_MICROSECOND(v);
    return 1;
}

/* arrow_buffers(values: list, kind, precision, scale) -> (null_count, validity, data) for the
 * fixed-width kinds, (null_count, validity, offsets, data) for strings and binaries: the
 * buffers of the Arrow array pyarrow.array(values, type) makes, validity None when no value
 * is None. None (no error) when a value is not one this kind takes as it is (then
 * pyarrow.array converts, or refuses, them all): an int64 column's values are exact ints
 * that fit; a decimal's are Decimal or int values of at most `scale` digits after the point
 * that fit the precision, without exponent; a timestamp's are naive or UTC datetimes; a
 * string's are str (UTF-8 encodable), a binary's bytes, and their data at most 2**31 - 2
 * bytes (what pyarrow puts in one array). */
static PyObject *arrow_buffers(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4 || !PyList_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "arrow_buffers(values: list, kind, precision, scale)");
        return NULL;
    }
    long kind = PyLong_AsLong(args[1]), precision = PyLong_AsLong(args[2]),
         scale = PyLong_AsLong(args[3]);
    if (PyErr_Occurred()) return NULL;
    if (kind < BUF_INT64 || kind > BUF_BINARY ||
        (kind == BUF_DECIMAL128 && (precision < 1 || precision > 38 || scale < 0 ||
                                    scale > precision))) {
        PyErr_SetString(PyExc_ValueError, "arrow_buffers: unknown kind, precision or scale");
        return NULL;
    }
    PyObject *values = PyList_AsTuple(args[0]); /* Python code (str of a Decimal) runs */
    if (values == NULL) return NULL;
    Py_ssize_t count = PyTuple_GET_SIZE(values), nulls = 0, width = 0, size = 0;
    PyObject *validity = NULL, *offsets = NULL, *data = NULL, *result = NULL;
    int variable = kind == BUF_STRING || kind == BUF_BINARY;
    width = kind == BUF_DECIMAL128 ? 16 : 8;
    validity = PyBytes_FromStringAndSize(NULL, (count + 7) / 8);
    if (validity == NULL) goto end;
    uint8_t *bits = (uint8_t *)PyBytes_AS_STRING(validity);
    memset(bits, 0, (count + 7) / 8);
    if (variable) {
        offsets = PyBytes_FromStringAndSize(NULL, (count + 1) * 4);
        if (offsets == NULL) goto end;
        int32_t *at = (int32_t *)PyBytes_AS_STRING(offsets);
        at[0] = 0;
        for (Py_ssize_t i = 0; i < count; i++) { /* sizes first, then one copy */
            PyObject *v = PyTuple_GET_ITEM(values, i);
            Py_ssize_t n = 0;
            if (v == Py_None) {
                nulls++;
            } else if (kind == BUF_STRING && PyUnicode_CheckExact(v)) {
                if (PyUnicode_IS_COMPACT_ASCII(v)) {
                    n = PyUnicode_GET_LENGTH(v);
                } else if (PyUnicode_AsUTF8AndSize(v, &n) == NULL) {
                    PyErr_Clear(); /* a lone surrogate: pyarrow reads or refuses it */
                    goto decline;
                }
                bits[i >> 3] |= (uint8_t)(1u << (i & 7));
            } else if (kind == BUF_BINARY && PyBytes_CheckExact(v)) {
                n = PyBytes_GET_SIZE(v);
                bits[i >> 3] |= (uint8_t)(1u << (i & 7));
            } else {
                goto decline;
            }
            if (n > INT32_MAX - 1 - size) goto decline; /* pyarrow's most: INT32_MAX - 1 */
            size += n;
            at[i + 1] = (int32_t)size;
        }
        data = PyBytes_FromStringAndSize(NULL, size);
        if (data == NULL) goto end;
        char *out = PyBytes_AS_STRING(data);
        for (Py_ssize_t i = 0; i < count; i++) {
            PyObject *v = PyTuple_GET_ITEM(values, i);
            Py_ssize_t n = at[i + 1] - at[i];
            if (n == 0) continue;
            const char *from = kind == BUF_BINARY          ? PyBytes_AS_STRING(v)
                               : PyUnicode_IS_COMPACT_ASCII(v) ? (const char *)PyUnicode_DATA(v)
                                                             : PyUnicode_AsUTF8(v);
            memcpy(out + at[i], from, n);
        }
    } else {
        data = PyBytes_FromStringAndSize(NULL, count * width);
        if (data == NULL) goto end;
        char *out = PyBytes_AS_STRING(data);
        memset(out, 0, count * width);
        for (Py_ssize_t i = 0; i < count; i++) {
            PyObject *v = PyTuple_GET_ITEM(values, i);
            if (v == Py_None) {
                nulls++;
                continue;
            }
            if (kind == BUF_INT64) {
                if (!PyLong_CheckExact(v)) goto decline;
                int overflow = 0;
                long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
                if (x == -1 && PyErr_Occurred()) goto end;
                if (overflow) goto decline;
                int64_t y = x;
                memcpy(out + i * 8, &y, 8);
            } else if (kind == BUF_TIMESTAMP_US) {
                int64_t micros;
                if (!timestamp_micros(v, &micros)) goto decline;
                memcpy(out + i * 8, &micros, 8);
            } else {
                int128 unscaled;
                int got = decimal_unscaled(v, (int)precision, (int)scale, &unscaled);
                if (got < 0) goto end;
                if (got == 0) goto decline;
                memcpy(out + i * 16, &unscaled, 16); /* native order: Arrow's on this host */
            }
            bits[i >> 3] |= (uint8_t)(1u << (i & 7));
        }
    }
    if (nulls == 0) Py_SETREF(validity, Py_NewRef(Py_None));
    result = variable ? Py_BuildValue("nOOO", nulls, validity, offsets, data)
                      : Py_BuildValue("nOO", nulls, validity, data);
    goto end;
decline:
    result = Py_NewRef(Py_None);
end:
    Py_DECREF(values);
    Py_XDECREF(validity);
    Py_XDECREF(offsets);
    Py_XDECREF(data);
    return result;
}

/* ---- module ------------------------------------------------------------------------ */

/* Whitespace as bytes.strip() removes it. */
static int is_byte_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

static int append_size(PyObject *list, Py_ssize_t value) {
    PyObject *number = PyLong_FromSsize_t(value);
    if (number == NULL) return -1;
    int failed = PyList_Append(list, number);
    Py_DECREF(number);
    return failed;
}

/* jsonl_lines(data, offset, number) -> (starts, ends, numbers, count), or None.
 * ``data`` holds whole lines, each ending with '\n', read from file offset ``offset``, its
 * first line being line ``number``. For every line that is not blank (only bytes.strip()
 * whitespace): its start offset, its end offset (just past its '\n') and its line number;
 * ``count`` counts every line. None when a line that is not blank does not open with '{' and
 * close with '}' right before its '\n' (the caller then reads the lines one by one), or
 * when ``data`` does not end with '\n'. */
static PyObject *jsonl_lines(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "jsonl_lines(data, offset, number)");
        return NULL;
    }
    Py_ssize_t base = PyLong_AsSsize_t(args[1]), first_number = PyLong_AsSsize_t(args[2]);
    if ((base == -1 || first_number == -1) && PyErr_Occurred()) return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) return NULL;
    const unsigned char *data = view.buf;
    Py_ssize_t size = view.len, position = 0, count = 0;
    PyObject *starts = PyList_New(0), *ends = PyList_New(0), *numbers = PyList_New(0);
    PyObject *result = NULL;
    if (starts == NULL || ends == NULL || numbers == NULL) goto done;
    if (size > 0 && data[size - 1] != '\n') {
        result = Py_NewRef(Py_None);
        goto done;
    }
    while (position < size) {
        const unsigned char *newline = memchr(data + position, '\n', (size_t)(size - position));
        Py_ssize_t stop = newline - data, next = stop + 1;
        Py_ssize_t first = position;
        while (first < stop && is_byte_space(data[first])) first++;
        if (first < stop) { /* not blank */
            if (data[position] != '{' || data[stop - 1] != '}') {
                result = Py_NewRef(Py_None);
                goto done;
            }
            if (append_size(starts, base + position) || append_size(ends, base + next) ||
                append_size(numbers, first_number + count))
                goto done;
        }
        count++;
        position = next;
    }
    result = Py_BuildValue("(OOOn)", starts, ends, numbers, count);
done:
    Py_XDECREF(starts);
    Py_XDECREF(ends);
    Py_XDECREF(numbers);
    PyBuffer_Release(&view);
    return result;
}

static PyObject *configure(PyObject *self, PyObject *args) {
    PyObject *parsed_redo, *literal, *is_null, *no_values, *unsupported, *decimal, *utc;
    if (!PyArg_ParseTuple(args, "OOOOOOO", &parsed_redo, &literal, &is_null, &no_values,
                          &unsupported, &decimal, &utc))
        return NULL;
    if (!PyType_Check(literal) || !PyType_IsSubtype((PyTypeObject *)literal, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "configure: Literal must be a tuple subclass");
        return NULL;
    }
    Py_XSETREF(ParsedRedoType, Py_NewRef(parsed_redo));
    Py_XSETREF(LiteralType, Py_NewRef(literal));
    Py_XSETREF(IsNullLiteral, Py_NewRef(is_null));
    Py_XSETREF(NoValues, Py_NewRef(no_values));
    Py_XSETREF(Unsupported, Py_NewRef(unsupported));
    Py_XSETREF(DecimalType, Py_NewRef(decimal));
    Py_XSETREF(UtcZone, Py_NewRef(utc));
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"configure", configure, METH_VARARGS,
     "configure(ParsedRedo, Literal, IS_NULL_LITERAL, no_values, UNSUPPORTED, Decimal, UTC)"},
    {"parse_strict", parse_strict, METH_O,
     "parse_strict(sql) -> ParsedRedo, or None when the reference must read it"},
    {"typed_image", (PyCFunction)(void (*)(void))typed_image, METH_FASTCALL,
     "typed_image(literals, specs, fallback, *fallback_args) -> dict of typed values"},
    {"parse_typed", (PyCFunction)(void (*)(void))parse_typed, METH_FASTCALL,
     "parse_typed(sql, specs, fallback, *fallback_args) -> (new, old, rowid), or None when "
     "parse_strict and typed_image must read it"},
    {"columns_of", (PyCFunction)(void (*)(void))columns_of, METH_FASTCALL,
     "columns_of(rows, names) -> [[row.get(name) for row in rows] for name in names], or None "
     "when a row is not a dict"},
    {"attributes_of", (PyCFunction)(void (*)(void))attributes_of, METH_FASTCALL,
     "attributes_of(objects, names) -> [[getattr(o, name) for o in objects] for name in names]"},
    {"arrow_buffers", (PyCFunction)(void (*)(void))arrow_buffers, METH_FASTCALL,
     "arrow_buffers(values, kind, precision, scale) -> (null_count, validity, [offsets,] data) "
     "of the Arrow array of values, or None when pyarrow must convert them"},
    {"packed_redo_position", (PyCFunction)(void (*)(void))packed_redo_position, METH_FASTCALL,
     "packed_redo_position(rs_id, ssn) -> int, or None when the reference must read it"},
    {"jsonl_lines", (PyCFunction)(void (*)(void))jsonl_lines, METH_FASTCALL,
     "jsonl_lines(data, offset, number) -> (starts, ends, numbers, count) of its lines that "
     "are not blank, or None when one of them is not '{...}'"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_compiled", "Compiled SQL_REDO scanner and literal typer.", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__compiled(void) {
    PyDateTime_IMPORT;
    if (PyDateTimeAPI == NULL) return NULL;
    StrInsert = PyUnicode_InternFromString("INSERT");
    StrUpdate = PyUnicode_InternFromString("UPDATE");
    StrDelete = PyUnicode_InternFromString("DELETE");
    DoubledQuote = PyUnicode_FromString("\"\"");
    Quote = PyUnicode_FromString("\"");
    if (!StrInsert || !StrUpdate || !StrDelete || !DoubledQuote || !Quote)
        return NULL;
    return PyModule_Create(&module);
}
