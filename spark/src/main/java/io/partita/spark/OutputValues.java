package io.partita.spark;

import java.util.Arrays;

import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * One output row as a column value: a float for a scalar row, {@code array<float>} for a vector,
 * nested arrays for more dims ({@code array<array<float>>} for a matrix per row), or an ML
 * {@code DenseVector} where the user asks for one ({@code vectorOutputs}).
 */
final class OutputValues {
    private OutputValues() {
    }

    /** The Spark type of an output whose row has {@code rank} dims. */
    static DataType type(int rank) {
        DataType t = DataTypes.FloatType;
        for (int i = 0; i < rank; i++) {
            t = new ArrayType(t, false);
        }
        return t;
    }

    /** A row of one dim as an ML {@code DenseVector} (doubles, as Spark ML's vectors hold). */
    static org.apache.spark.ml.linalg.Vector vector(float[] row) {
        double[] d = new double[row.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = row[i];
        }
        return org.apache.spark.ml.linalg.Vectors.dense(d);
    }

    static Object of(float[] row, int[] rowDims) {
        if (rowDims.length == 0) {
            return row[0];
        }
        return nested(row, 0, 0, rowDims);
    }

    private static Object nested(float[] row, int from, int level, int[] dims) {
        if (level == dims.length - 1) {
            return scala.collection.immutable.ArraySeq.unsafeWrapArray(Arrays.copyOfRange(row, from, from + dims[level]));
        }
        int stride = 1;
        for (int i = level + 1; i < dims.length; i++) {
            stride *= dims[i];
        }
        Object[] parts = new Object[dims[level]];
        for (int i = 0; i < parts.length; i++) {
            parts[i] = nested(row, from + i * stride, level + 1, dims);
        }
        return scala.collection.immutable.ArraySeq.unsafeWrapArray(parts);
    }
}
