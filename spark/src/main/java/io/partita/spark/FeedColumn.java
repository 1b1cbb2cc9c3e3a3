package io.partita.spark;

import java.io.Serializable;
import java.util.Arrays;

import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.NumericType;

/**
 * How one column's values become one model input's rows: checked against the input's row shape
 * when the schema is (types, nesting depth), and per row when the values are (lengths).
 *
 * <p>Accepted, for an input of row shape {@code [d1, ..., dk]}: a nested array of depth k
 * ({@code array<array<float>>} for k = 2, lengths d1, d2, ... at each level); a flat numeric array
 * or an ML vector of d1 × ... × dk values in row-major order (for k = 1 this is the plain
 * {@code array<float>} or vector column); a numeric column for k = 0. Elements of any numeric type
 * are converted to the input's element type.
 */
final class FeedColumn implements Serializable {
    private static final long serialVersionUID = 1L;

    enum Kind {
        SCALAR,
        VECTOR,
        FLAT_ARRAY,
        NESTED_ARRAY
    }

    private final String column;
    private final String input;
    private final long[] rowDims;
    private final int rowElements;
    private final Kind kind;
    private final String rowShape;

    private FeedColumn(String column, ModelSignature.Port port, Kind kind) {
        this.column = column;
        this.input = port.name();
        this.rowDims = port.rowDims();
        this.rowElements = port.rowElements();
        this.kind = kind;
        this.rowShape = port.rowShape();
    }

    /**
     * Checks a column's type against an input.
     *
     * @throws IllegalArgumentException naming the column, its type and the shape the input expects
     */
    static FeedColumn of(String column, DataType type, ModelSignature.Port port) {
        int k = port.rowDims().length;
        if (k == 0 && type instanceof NumericType) {
            return new FeedColumn(column, port, Kind.SCALAR);
        }
        if (k >= 1 && type.equals(SQLDataTypes.VectorType())) {
            return new FeedColumn(column, port, Kind.VECTOR);
        }
        if (k >= 1 && type instanceof ArrayType) {
            int depth = 0;
            DataType t = type;
            while (t instanceof ArrayType a) {
                depth++;
                t = a.elementType();
            }
            if (t instanceof NumericType) {
                if (depth == 1) {
                    return new FeedColumn(column, port, Kind.FLAT_ARRAY);
                }
                if (depth == k) {
                    return new FeedColumn(column, port, Kind.NESTED_ARRAY);
                }
            }
        }
        throw new IllegalArgumentException("column '" + column + "' has type " + type.simpleString() + "; model input '"
                + port.name() + "' expects " + port.rowShape() + " per row: " + accepted(port));
    }

    private static String accepted(ModelSignature.Port port) {
        int k = port.rowDims().length;
        if (k == 0) {
            return "a numeric column";
        }
        String flat = "array<float> or array<double> of " + port.rowElements() + " values, or a vector of "
                + port.rowElements();
        if (k == 1) {
            return flat;
        }
        return "a nested array of depth " + k + " (" + "array<".repeat(k) + "float" + ">".repeat(k) + ", lengths "
                + Arrays.toString(port.rowDims()) + "), or a flat " + flat + " in row-major order";
    }

    String column() {
        return column;
    }

    /** Writes row {@code row}'s value of column {@code index} at {@code dst[offset ...]}; the value is not null. */
    void write(Row row, int index, float[] dst, int offset) {
        switch (kind) {
            case SCALAR -> dst[offset] = ((Number) row.get(index)).floatValue();
            case VECTOR -> {
                Vector v = (Vector) row.get(index);
                checkLength(v.size(), rowElements);
                // sparse vectors too: zeros where they hold no value
                for (int i = 0; i < rowElements; i++) {
                    dst[offset + i] = (float) v.apply(i);
                }
            }
            case FLAT_ARRAY -> {
                scala.collection.Seq<?> s = row.getSeq(index);
                checkLength(s.length(), rowElements);
                copy(s, dst, offset);
            }
            case NESTED_ARRAY -> nested(row.getSeq(index), 0, dst, offset);
        }
    }

    /** Level {@code level} of a nested array; returns the offset after its values. */
    private int nested(scala.collection.Seq<?> s, int level, float[] dst, int offset) {
        if (s.length() != rowDims[level]) {
            throw new IllegalArgumentException("column '" + column + "': a row's array at depth " + (level + 1) + " has "
                    + s.length() + " elements; model input '" + input + "' expects " + rowShape + " per row (" + rowDims[level]
                    + " at that depth)");
        }
        if (level == rowDims.length - 1) {
            copy(s, dst, offset);
            return offset + s.length();
        }
        int at = offset;
        for (int i = 0; i < s.length(); i++) {
            Object inner = s.apply(i);
            if (inner == null) {
                throw nullElement();
            }
            at = nested((scala.collection.Seq<?>) inner, level + 1, dst, at);
        }
        return at;
    }

    private void copy(scala.collection.Seq<?> s, float[] dst, int offset) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            Object v = s.apply(i);
            if (v == null) {
                throw nullElement();
            }
            dst[offset + i] = ((Number) v).floatValue();
        }
    }

    private IllegalArgumentException nullElement() {
        return new IllegalArgumentException("column '" + column + "': a row's array holds a null element; model input '"
                + input + "' needs " + rowShape + " numbers per row (a null row is scored as null, a null inside a row is an error)");
    }

    private void checkLength(int actual, int expected) {
        if (actual != expected) {
            throw new IllegalArgumentException("column '" + column + "': a row has " + actual
                    + " values; model input '" + input + "' expects " + rowShape + " per row (" + expected + " values)");
        }
    }
}
