package io.partita.graph;

import java.util.Arrays;
import java.util.Objects;

/**
 * The description of a tensor without its data: id, data type, dims, layout and property.
 * Immutable; {@code with*} methods return modified copies.
 *
 * <p>A dim may be {@link #UNKNOWN_DIM} (known by compile time) or {@link #DYNAMIC_DIM} (known only
 * at execution). A tensor of unknown rank has {@link #UNKNOWN_NDIMS} dims.
 */
public final class LogicalTensor {
    /** A dim that is not known while the graph is built but known when a partition compiles. */
    public static final long UNKNOWN_DIM = Long.MIN_VALUE;
    /** A dim known only at execution. */
    public static final long DYNAMIC_DIM = Long.MIN_VALUE + 1;
    /** {@link #memSize()} of a tensor with a dynamic dim: never mistaken for a size. */
    public static final long DYNAMIC_SIZE = Long.MIN_VALUE + 1;
    /** {@link #ndims()} of a tensor whose rank is not known yet. */
    public static final int UNKNOWN_NDIMS = -1;

    private final long id;
    private final DataType dataType;
    private final long[] dims; // null: unknown rank
    private final LayoutType layoutType;
    private final long[] strides; // only for STRIDED; never null then (dense when not given)
    private final long layoutId; // only for OPAQUE
    private final PropertyType property;

    /**
     * @throws InvalidGraphException for a negative dim or stride (other than the placeholders), or
     *     dims and strides whose element count or addressed bytes exceed 2^63-1
     */
    private LogicalTensor(long id, DataType dataType, long[] dims, LayoutType layoutType, long[] strides,
            long layoutId, PropertyType property) {
        if (id < 0) {
            throw new IllegalArgumentException("logical tensor id must be >= 0, got " + id);
        }
        this.id = id;
        this.dataType = Objects.requireNonNull(dataType, "data type");
        this.layoutType = Objects.requireNonNull(layoutType, "layout type");
        this.property = Objects.requireNonNull(property, "property type");
        if (dims != null) {
            for (int i = 0; i < dims.length; i++) {
                if (dims[i] < 0 && dims[i] != UNKNOWN_DIM && dims[i] != DYNAMIC_DIM) {
                    throw new InvalidGraphException("logical tensor " + id + ": dim " + i + " is " + dims[i]
                            + "; expected >= 0, UNKNOWN_DIM or DYNAMIC_DIM");
                }
            }
        }
        this.dims = dims == null ? null : dims.clone();
        if (layoutType == LayoutType.STRIDED) {
            if (strides != null && dims != null && strides.length != dims.length) {
                throw new InvalidGraphException("logical tensor " + id + ": " + strides.length
                        + " strides for " + dims.length + " dims");
            }
            if (strides != null) {
                for (int i = 0; i < strides.length; i++) {
                    // Kernels walk memory forwards from the tensor's start; a negative stride would address
                    // bytes before it.
                    if (strides[i] < 0 && strides[i] != UNKNOWN_DIM && strides[i] != DYNAMIC_DIM) {
                        throw new InvalidGraphException("logical tensor " + id + ": stride " + i + " is " + strides[i]
                                + " (strides " + dimsToString(strides) + "); expected >= 0, UNKNOWN_DIM or DYNAMIC_DIM");
                    }
                }
            }
            this.strides = strides != null ? strides.clone() : (dims == null ? null : denseStrides(id, dataType, dims));
        } else {
            this.strides = null;
        }
        this.layoutId = layoutId;
        checkSizes();
    }

    /**
     * Refuses dims and strides whose element count, or bytes addressed, do not fit a long: such a
     * size would wrap around and let a too-small buffer pass the size checks.
     */
    private void checkSizes() {
        if (!isConcrete()) {
            return;
        }
        long n = 1;
        for (long d : dims) {
            n = multiply(n, d, "elements");
        }
        if (layoutType != LayoutType.STRIDED) {
            bytes(n);
            return;
        }
        if (n == 0) {
            return;
        }
        long last = 0;
        for (int i = 0; i < dims.length; i++) {
            if (strides[i] < 0) {
                return; // an unknown stride: its extent is checked once it is known
            }
            last = add(last, multiply(dims[i] - 1, strides[i], "bytes"), "bytes");
        }
        bytes(add(last, 1, "bytes"));
    }

    private long multiply(long a, long b, String what) {
        try {
            return Math.multiplyExact(a, b);
        } catch (ArithmeticException e) {
            throw tooLarge(what);
        }
    }

    private long add(long a, long b, String what) {
        try {
            return Math.addExact(a, b);
        } catch (ArithmeticException e) {
            throw tooLarge(what);
        }
    }

    private long bytes(long elements) {
        try {
            return dataType.byteSize(elements);
        } catch (InvalidArgumentException e) {
            throw tooLarge("bytes");
        }
    }

    private InvalidGraphException tooLarge(String what) {
        return new InvalidGraphException(describeShape(id, dataType, dims, strides) + " has more than 2^63-1 "
                + what + ("bytes".equals(what) && strides != null && !Arrays.equals(strides, denseStridesUnchecked(dims))
                        ? " in the memory its strides address" : ""));
    }

    /** {@code tensor 3 f32[4,5] strides [10,1]}: the tensor as size errors name it. */
    private static String describeShape(long id, DataType dataType, long[] dims, long[] strides) {
        return "tensor " + id + " " + dataType + dimsToString(dims)
                + (strides != null && dims != null && !Arrays.equals(strides, denseStridesUnchecked(dims))
                        ? " strides " + dimsToString(strides) : "");
    }

    /** A dense, strided, variable-less ({@code undef} property) tensor. */
    public static LogicalTensor of(long id, DataType dataType, long... dims) {
        return new LogicalTensor(id, dataType, dims, LayoutType.STRIDED, null, 0, PropertyType.UNDEF);
    }

    /** A tensor whose rank and dims are not known yet. */
    public static LogicalTensor unknownRank(long id, DataType dataType) {
        return new LogicalTensor(id, dataType, null, LayoutType.UNDEF, null, 0, PropertyType.UNDEF);
    }

    /** A tensor with an explicit layout: strides for STRIDED (null = dense), ignored otherwise. */
    public static LogicalTensor of(long id, DataType dataType, long[] dims, LayoutType layout, long[] strides,
            PropertyType property) {
        return new LogicalTensor(id, dataType, dims, layout, strides, 0, property);
    }

    /** A tensor in a backend-private layout. */
    public static LogicalTensor opaque(long id, DataType dataType, long[] dims, long layoutId, PropertyType property) {
        return new LogicalTensor(id, dataType, dims, LayoutType.OPAQUE, null, layoutId, property);
    }

    /**
     * Row-major dense strides; unknown or dynamic dims make the strides to their left unknown/dynamic.
     *
     * @throws InvalidGraphException when a stride exceeds 2^63-1 elements
     */
    public static long[] denseStrides(long[] dims) {
        return denseStrides(-1, null, dims);
    }

    private static long[] denseStrides(long id, DataType dataType, long[] dims) {
        long[] s = new long[dims.length];
        long acc = 1;
        for (int i = dims.length - 1; i >= 0; i--) {
            s[i] = acc;
            long d = dims[i];
            if (i == 0 || acc == UNKNOWN_DIM || acc == DYNAMIC_DIM) {
                continue; // the product past the outermost dim is no stride: it may overflow harmlessly
            }
            if (d == DYNAMIC_DIM || d == UNKNOWN_DIM) {
                acc = d;
                continue;
            }
            try {
                acc = Math.multiplyExact(acc, Math.max(d, 1));
            } catch (ArithmeticException e) {
                throw new InvalidGraphException((id >= 0 ? "tensor " + id + " " + dataType : "dims") + dimsToString(dims)
                        + ": the dense stride of dim " + (i - 1) + " exceeds 2^63-1 elements");
            }
        }
        return s;
    }

    /** Dense strides for display only: wraps instead of throwing. */
    private static long[] denseStridesUnchecked(long[] dims) {
        long[] s = new long[dims.length];
        long acc = 1;
        for (int i = dims.length - 1; i >= 0; i--) {
            s[i] = acc;
            long d = dims[i];
            acc = acc < 0 ? acc : d < 0 ? d : acc * Math.max(d, 1);
        }
        return s;
    }

    public long id() {
        return id;
    }

    public DataType dataType() {
        return dataType;
    }

    /** The dims (a copy), or null when the rank is unknown. */
    public long[] dims() {
        return dims == null ? null : dims.clone();
    }

    public long dim(int i) {
        return dims[i];
    }

    /** The rank, or {@link #UNKNOWN_NDIMS}. */
    public int ndims() {
        return dims == null ? UNKNOWN_NDIMS : dims.length;
    }

    public LayoutType layoutType() {
        return layoutType;
    }

    /** Strides for a STRIDED tensor (a copy), null otherwise. */
    public long[] strides() {
        return strides == null ? null : strides.clone();
    }

    /** Stride {@code i} of a STRIDED tensor (no copy of the array: per-call code reads them all). */
    public long stride(int i) {
        if (strides == null) {
            throw new IllegalStateException("tensor " + id + " has layout " + layoutType + ", not strided: no strides");
        }
        return strides[i];
    }

    public long layoutId() {
        return layoutId;
    }

    public PropertyType property() {
        return property;
    }

    public boolean isConstant() {
        return property == PropertyType.CONSTANT;
    }

    /** True when the rank and every dim is a concrete number. */
    public boolean isConcrete() {
        if (dims == null) {
            return false;
        }
        for (long d : dims) {
            if (d < 0) {
                return false;
            }
        }
        return true;
    }

    public boolean hasDynamicDim() {
        if (dims == null) {
            return false;
        }
        for (long d : dims) {
            if (d == DYNAMIC_DIM) {
                return true;
            }
        }
        return false;
    }

    public boolean hasUnknownDim() {
        if (dims == null) {
            return true;
        }
        for (long d : dims) {
            if (d == UNKNOWN_DIM) {
                return true;
            }
        }
        return false;
    }

    /** Number of elements of a concrete tensor. */
    public long elementCount() {
        requireConcrete("elementCount");
        long n = 1;
        for (long d : dims) {
            n = Math.multiplyExact(n, d);
        }
        return n;
    }

    /**
     * Bytes a buffer for this tensor needs; {@link #DYNAMIC_SIZE} when a dim is dynamic.
     *
     * @throws IllegalStateException when the rank or a dim is unknown, or the layout is not strided
     */
    public long memSize() {
        if (hasDynamicDim()) {
            return DYNAMIC_SIZE;
        }
        requireConcrete("memSize");
        if (layoutType == LayoutType.OPAQUE || layoutType == LayoutType.ANY || layoutType == LayoutType.UNDEF) {
            // Backends that pick a private layout report its size through the compiled partition.
            return dataType.byteSize(elementCount());
        }
        long span = 1;
        for (int i = 0; i < dims.length; i++) {
            if (dims[i] == 0) {
                return 0;
            }
            if (strides[i] < 0) {
                // negative strides are refused at construction: this is the UNKNOWN/DYNAMIC placeholder
                throw new IllegalStateException("logical tensor " + id + ": stride " + i + " is unknown");
            }
            span = Math.addExact(span, Math.multiplyExact(dims[i] - 1, strides[i]));
        }
        return dataType.byteSize(span);
    }

    /** True for a strided tensor whose strides are row-major dense. */
    public boolean isDense() {
        return layoutType == LayoutType.STRIDED && dims != null && Arrays.equals(strides, denseStridesUnchecked(dims))
                || (layoutType == LayoutType.STRIDED && isConcrete() && denseIgnoringUnitDims());
    }

    private boolean denseIgnoringUnitDims() {
        long expect = 1;
        for (int i = dims.length - 1; i >= 0; i--) {
            if (dims[i] != 1 && strides[i] != expect) {
                return false;
            }
            expect *= dims[i]; // no overflow: the element count was checked at construction
        }
        return true;
    }

    /**
     * True when two distinct elements of this concrete strided tensor may share memory (a stride of
     * 0 over a dim longer than 1, or strides that interleave). Reading such a tensor is fine (a
     * broadcast); writing it would let one element overwrite another. Conservative: dims ordered by
     * stride must each step past everything the smaller strides address, which every dense or
     * permuted-dense layout does.
     */
    public boolean stridesMayAlias() {
        if (layoutType != LayoutType.STRIDED || !isConcrete()) {
            return false;
        }
        Integer[] order = new Integer[dims.length];
        for (int i = 0; i < dims.length; i++) {
            if (dims[i] == 0) {
                return false; // no elements at all
            }
            if (strides[i] < 0) {
                return false; // unknown: checked once known
            }
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Long.compare(strides[a], strides[b]));
        long reach = 0; // elements addressed by the smaller-stride dims, minus one (the max offset)
        for (int i : order) {
            if (dims[i] == 1) {
                continue;
            }
            if (strides[i] <= reach) {
                return true;
            }
            reach += (dims[i] - 1) * strides[i]; // within the extent checked at construction
        }
        return false;
    }

    private void requireConcrete(String what) {
        if (!isConcrete()) {
            throw new IllegalStateException(what + " of logical tensor " + id + " needs concrete dims, has "
                    + dimsToString(dims));
        }
    }

    public LogicalTensor withId(long newId) {
        return new LogicalTensor(newId, dataType, dims, layoutType, strides, layoutId, property);
    }

    public LogicalTensor withDataType(DataType newType) {
        return new LogicalTensor(id, newType, dims, layoutType, strides, layoutId, property);
    }

    /** New dims with dense strides (a strided layout is kept strided, others become strided). */
    public LogicalTensor withDims(long... newDims) {
        LayoutType lt = layoutType == LayoutType.OPAQUE || layoutType == LayoutType.ANY ? layoutType : LayoutType.STRIDED;
        return new LogicalTensor(id, dataType, newDims, lt, null, layoutId, property);
    }

    public LogicalTensor withStrides(long... newStrides) {
        return new LogicalTensor(id, dataType, dims, LayoutType.STRIDED, newStrides, 0, property);
    }

    public LogicalTensor withLayout(LayoutType newLayout) {
        return new LogicalTensor(id, dataType, dims, newLayout, null, layoutId, property);
    }

    public LogicalTensor withProperty(PropertyType newProperty) {
        return new LogicalTensor(id, dataType, dims, layoutType, strides, layoutId, newProperty);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LogicalTensor t && t.id == id && t.dataType == dataType && t.layoutType == layoutType
                && t.property == property && t.layoutId == layoutId && Arrays.equals(t.dims, dims)
                && Arrays.equals(t.strides, strides);
    }

    /**
     * Written out rather than {@code Objects.hash}, whose varargs array and boxes were allocated on
     * every call: the constant cache's keys hash tensors on every execution.
     */
    @Override
    public int hashCode() {
        int h = Long.hashCode(id);
        h = 31 * h + dataType.hashCode();
        h = 31 * h + layoutType.hashCode();
        h = 31 * h + property.hashCode();
        h = 31 * h + Long.hashCode(layoutId);
        h = 31 * h + Arrays.hashCode(dims);
        return 31 * h + Arrays.hashCode(strides);
    }

    /** Dims as text: {@code [2,?,dyn]}, {@code [?rank]} for unknown rank. */
    public static String dimsToString(long[] dims) {
        if (dims == null) {
            return "[?rank]";
        }
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < dims.length; i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(dims[i] == UNKNOWN_DIM ? "?" : dims[i] == DYNAMIC_DIM ? "dyn" : Long.toString(dims[i]));
        }
        return sb.append(']').toString();
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("tensor ").append(id).append(' ').append(dataType).append(' ')
                .append(dimsToString(dims));
        if (layoutType == LayoutType.STRIDED && strides != null && dims != null && !Arrays.equals(strides, denseStridesUnchecked(dims))) {
            sb.append(" strides ").append(dimsToString(strides));
        } else if (layoutType != LayoutType.STRIDED) {
            sb.append(' ').append(layoutType);
        }
        if (property != PropertyType.UNDEF) {
            sb.append(' ').append(property);
        }
        return sb.toString();
    }
}
