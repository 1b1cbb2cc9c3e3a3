package io.partita.graph;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;


/**
 * A logical tensor with concrete dims bound to memory on an engine. CPU memory is a
 * {@link MemorySegment}; native segments must be 64-byte aligned ({@link #allocate} does that).
 */
public final class Tensor {
    /** Alignment of every native CPU buffer, so kernels may use full-width vector loads. */
    public static final long ALIGNMENT = 64;

    private final LogicalTensor logicalTensor;
    private final Engine engine;
    private final MemorySegment data;

    private Tensor(LogicalTensor logicalTensor, Engine engine, MemorySegment data) {
        this.logicalTensor = logicalTensor;
        this.engine = engine;
        this.data = data;
    }

    /**
     * Binds a logical tensor to existing memory.
     *
     * @throws InvalidArgumentException when the tensor has a dynamic or unknown dim, the segment is
     *     too small or a native segment is not 64-byte aligned
     */
    public static Tensor of(LogicalTensor lt, Engine engine, MemorySegment data) {
        Objects.requireNonNull(lt, "logical tensor");
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(data, "data");
        requireConcrete(lt);
        // memSize is the extent the strides address (overflow-checked when the tensor was made), so
        // no element of a strided tensor lies past the buffer's end.
        long need = lt.memSize();
        if (data.byteSize() < need) {
            throw new InvalidArgumentException("tensor " + lt.id() + " " + LogicalTensor.dimsToString(lt.dims()) + " "
                    + lt.dataType() + (lt.isDense() || lt.strides() == null ? ""
                            : " strides " + LogicalTensor.dimsToString(lt.strides()))
                    + " needs " + need + " bytes but its buffer has " + data.byteSize());
        }
        if (data.isNative() && data.address() % ALIGNMENT != 0) {
            throw new InvalidArgumentException("tensor " + lt.id() + ": buffer address 0x"
                    + Long.toHexString(data.address()) + " is not " + ALIGNMENT + "-byte aligned");
        }
        return new Tensor(lt, engine, data);
    }

    /** Allocates zeroed, 64-byte aligned memory for a concrete logical tensor. */
    public static Tensor allocate(LogicalTensor lt, Engine engine, Arena arena) {
        requireConcrete(lt);
        long size = Math.max(lt.memSize(), 1);
        return new Tensor(lt, engine, arena.allocate(size, ALIGNMENT));
    }

    private static void requireConcrete(LogicalTensor lt) {
        if (lt.hasDynamicDim()) {
            throw new InvalidArgumentException("cannot create a tensor for logical tensor " + lt.id()
                    + " with dynamic dims " + LogicalTensor.dimsToString(lt.dims())
                    + "; use CompiledPartition.inferOutputs to get concrete dims first");
        }
        if (!lt.isConcrete()) {
            throw new InvalidArgumentException("cannot create a tensor for logical tensor " + lt.id()
                    + " with unknown dims " + LogicalTensor.dimsToString(lt.dims()));
        }
        if (lt.layoutType() != LayoutType.STRIDED && lt.layoutType() != LayoutType.OPAQUE) {
            throw new InvalidArgumentException("cannot create a tensor for logical tensor " + lt.id()
                    + " with layout " + lt.layoutType() + "; expected strided or opaque");
        }
    }

    public LogicalTensor logicalTensor() {
        return logicalTensor;
    }

    public long id() {
        return logicalTensor.id();
    }

    public Engine engine() {
        return engine;
    }

    public MemorySegment data() {
        return data;
    }

    /** The same memory under another description of the same size (e.g. a compiled output's). */
    public Tensor withLogicalTensor(LogicalTensor lt) {
        return of(lt, engine, data);
    }

    /** The elements in logical row-major order, converted to double (any data type, any strides). */
    public double[] toDoubleArray() {
        return ElementCodec.read(logicalTensor, data);
    }

    /** Writes elements given in logical row-major order, rounding to the data type. */
    public void copyFrom(double[] values) {
        ElementCodec.write(logicalTensor, data, values);
    }

    /** The elements in logical row-major order as floats. */
    public float[] toFloatArray() {
        double[] d = toDoubleArray();
        float[] f = new float[d.length];
        for (int i = 0; i < d.length; i++) {
            f[i] = (float) d[i];
        }
        return f;
    }

    /** Writes float elements given in logical row-major order. */
    public void copyFrom(float[] values) {
        double[] d = new double[values.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = values[i];
        }
        copyFrom(d);
    }

    @Override
    public String toString() {
        return "Tensor[" + logicalTensor + " on " + engine + "]";
    }
}
