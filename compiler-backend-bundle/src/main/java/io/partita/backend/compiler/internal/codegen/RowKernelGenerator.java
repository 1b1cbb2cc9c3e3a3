package io.partita.backend.compiler.internal.codegen;

import static java.lang.constant.ConstantDescs.CD_Object;
import static java.lang.constant.ConstantDescs.CD_float;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_void;
import static java.lang.constant.ConstantDescs.INIT_NAME;
import static java.lang.constant.ConstantDescs.MTD_void;

import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;


import io.partita.backend.compiler.internal.expr.Expr;
import io.partita.backend.compiler.internal.expr.Fn;
import io.partita.graph.UnsupportedFeatureException;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Generates one class per fused expression with the JDK's ClassFile API and defines it as a
 * hidden class (unloadable once no kernel refers to it). The class's loop keeps every
 * intermediate in a vector register: one pass over the row whatever the chain's length. Leaves
 * uniform over the row (scalars, constants, the row index) are hoisted out of the loop; a row
 * length known at compile time is a constant in the code. Equal expressions share a class.
 *
 * <p>Cache blobs: while a compile {@linkplain #record() records}, every class it asks for is noted
 * with its key and bytes (the compiled partition's blobs). A compile from blobs {@linkplain #replay
 * replays} them: a class missing in memory is defined from the offered bytes instead of generated, and
 * one that is not offered, or that the JVM refuses, fails the compile from blobs (the runtime then
 * compiles from scratch). Offered bytes go through the same defineHiddenClass as generated ones, so the
 * JVM verifies them.
 */
public final class RowKernelGenerator {
    private static final ClassDesc CD_FLOAT_VECTOR = desc(FloatVector.class);
    private static final ClassDesc CD_SPECIES = desc(VectorSpecies.class);
    private static final ClassDesc CD_VECTOR_MATH = desc(VectorMath.class);
    private static final ClassDesc CD_ROW_KERNEL = desc(RowKernel.class);
    private static final MethodTypeDesc APPLY = MethodTypeDesc.of(CD_void, CD_float.arrayType(2), CD_int.arrayType(),
            CD_float.arrayType(), CD_int, CD_int, CD_int);
    private static final MethodTypeDesc FROM_ARRAY = MethodTypeDesc.of(CD_FLOAT_VECTOR, CD_SPECIES, CD_float.arrayType(),
            CD_int);
    private static final MethodTypeDesc INTO_ARRAY = MethodTypeDesc.of(CD_void, CD_float.arrayType(), CD_int);
    private static final MethodTypeDesc BROADCAST = MethodTypeDesc.of(CD_FLOAT_VECTOR, CD_float);
    private static final MethodTypeDesc INDEX = MethodTypeDesc.of(CD_FLOAT_VECTOR, CD_int);
    // Argument slots of apply(src, off, scalars, n, row, col); slot 0 is this.
    private static final int SRC = 1;
    private static final int OFF = 2;
    private static final int SCALARS = 3;
    private static final int N = 4;
    private static final int ROW = 5;
    private static final int COL = 6;

    /** Changes whenever the key's layout does (an old blob then never matches). */
    private static final String KEY_FORMAT = "partita.compiler.rowkernel/2";

    private final ConcurrentHashMap<Key, Defined> kernels = new ConcurrentHashMap<>();
    /** This thread's compile: classes asked for (to record) or offered (to replay); null outside one. */
    private final ThreadLocal<Session> session = new ThreadLocal<>();
    private final AtomicLong generated = new AtomicLong();
    private final AtomicLong loaded = new AtomicLong();
    private final AtomicLong generatedBytes = new AtomicLong();
    private final AtomicLong generateNanos = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();

    private record Key(Expr expr, int staticN) {
        // written out: see Expr#equals
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.staticN == staticN && k.expr.equals(expr);
        }

        @Override
        public int hashCode() {
            return expr.hashCode() * 31 + staticN;
        }
    }

    /** A defined class with what it was defined from (null bytes for the interpreted fallback). */
    private record Defined(RowKernel kernel, byte[] classKey, byte[] bytes) {
    }

    /**
     * What code generation has cost so far.
     *
     * @param generated classes generated here
     * @param loaded    classes defined from cache blobs instead
     * @param bytes     class bytes defined (generated or loaded)
     * @param nanos     time spent generating, loading and defining
     * @param rejected  generated classes the JVM refused (their partitions failed to compile)
     */
    public record Stats(long generated, long loaded, long bytes, long nanos, long rejected) {
        /** Classes defined, generated or loaded. */
        public long classes() {
            return generated + loaded;
        }
    }

    /**
     * A blob could not be replayed: malformed, missing for an expression the compile needs, or refused
     * by the JVM. The compile from blobs fails; nothing of it runs.
     */
    public static final class BlobRefusedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BlobRefusedException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** One compile's view: the classes it asked for, and (replaying) the bytes offered by class key. */
    public final class Session implements AutoCloseable {
        private final java.util.LinkedHashMap<String, byte[]> used = new java.util.LinkedHashMap<>();
        private final java.util.Map<String, byte[]> offered;
        private final Session outer;

        private Session(java.util.Map<String, byte[]> offered) {
            this.offered = offered;
            this.outer = session.get();
            session.set(this);
        }

        /** The classes asked for, as blobs ({@code int keyLength, key, class bytes}), in first-use order. */
        public List<byte[]> blobs() {
            List<byte[]> out = new java.util.ArrayList<>(used.size());
            for (java.util.Map.Entry<String, byte[]> e : used.entrySet()) {
                out.add(io.partita.spi.KeyedBlobs.encode(HexFormat.of().parseHex(e.getKey()), e.getValue()));
            }
            return out;
        }

        @Override
        public void close() {
            if (outer == null) {
                session.remove();
            } else {
                session.set(outer);
            }
        }
    }

    /** A generator keeping its classes in memory. */
    public RowKernelGenerator() {
    }

    /** Starts recording the classes this thread's compile asks for; close it when the compile is done. */
    public Session record() {
        return new Session(null);
    }

    /**
     * Starts a compile from blobs on this thread: classes come from these blobs (or memory), never from
     * generation.
     *
     * @throws BlobRefusedException naming a blob that is not {@code int keyLength, key, class bytes}
     */
    public Session replay(List<byte[]> blobs) {
        try {
            return new Session(io.partita.spi.KeyedBlobs.decode(blobs, -1, "generated class"));
        } catch (IllegalArgumentException e) {
            throw new BlobRefusedException(e.getMessage(), null);
        }
    }

    /**
     * The kernel for an expression, generated on first use.
     *
     * @param staticN the row length when known at compile time (a constant in the code), else 0
     * @param what    names the partition in the warning if generation fails
     * @throws BlobRefusedException replaying, when the blobs lack the class or the JVM refuses it
     */
    public RowKernel kernel(Expr expr, int staticN, String what) {
        Session s = session.get();
        Defined d = kernels.computeIfAbsent(new Key(expr, staticN), k -> define(k, what, s));
        if (s != null && d.bytes() != null) {
            s.used.put(HexFormat.of().formatHex(d.classKey()), d.bytes());
        }
        return d.kernel();
    }

    public Stats stats() {
        return new Stats(generated.get(), loaded.get(), generatedBytes.get(), generateNanos.get(), rejected.get());
    }

    /** Forgets generated classes (they unload once no compiled partition uses them). */
    public void clear() {
        kernels.clear();
    }

    private Defined define(Key key, String what, Session s) {
        long t0 = System.nanoTime();
        byte[] classKey = classKey(key.expr(), key.staticN());
        try {
            if (s != null && s.offered != null) {
                return fromBlob(classKey, s.offered.get(HexFormat.of().formatHex(classKey)), key.expr(), what);
            }
            byte[] bytes;
            try {
                bytes = generate(key.expr(), key.staticN());
            } catch (IllegalArgumentException | IllegalStateException e) {
                throw rejectedCode(key.expr(), what, e); // the ClassFile API refused to build it
            }
            return new Defined(load(bytes, key.expr(), what), classKey, bytes);
        } finally {
            generateNanos.addAndGet(System.nanoTime() - t0);
        }
    }

    /** The class defined from offered bytes; the JVM verifies them, and a class it refuses never runs. */
    private Defined fromBlob(byte[] classKey, byte[] bytes, Expr expr, String what) {
        if (bytes == null) {
            throw new BlobRefusedException(what + ": the blobs hold no class for " + expr.nodes(), null);
        }
        try {
            RowKernel k = defineHidden(bytes);
            loaded.incrementAndGet();
            generatedBytes.addAndGet(bytes.length);
            return new Defined(k, classKey, bytes);
        } catch (ReflectiveOperationException | LinkageError | ClassCastException e) {
            throw new BlobRefusedException(what + ": the JVM refused the class blob for " + expr.nodes() + ": " + e, e);
        }
    }

    /**
     * Defines generated bytes as a hidden class.
     *
     * @throws UnsupportedFeatureException naming the partition when the JVM refuses them
     */
    RowKernel load(byte[] bytes, Expr expr, String what) {
        try {
            RowKernel k = defineHidden(bytes);
            generated.incrementAndGet();
            generatedBytes.addAndGet(bytes.length);
            return k;
        } catch (ReflectiveOperationException | LinkageError | ClassCastException e) {
            throw rejectedCode(expr, what, e);
        }
    }

    private static RowKernel defineHidden(byte[] bytes) throws ReflectiveOperationException {
        MethodHandles.Lookup hidden = MethodHandles.lookup().defineHiddenClass(bytes, true);
        return (RowKernel) hidden.lookupClass().getDeclaredConstructor().newInstance();
    }

    /**
     * Everything the class bytes depend on: the key format, a
     * fingerprint of the generator's own classes (any change to the code generation changes it), the
     * JVM version, the vector species the kernels run at, and the expression in full (functions,
     * arguments, attributes as float bits, indices) with the static row length.
     */
    static byte[] classKey(Expr expr, int staticN) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeUTF(KEY_FORMAT);
            out.write(Fingerprint.VALUE);
            // properties rather than Runtime.version(), whose string form runs a stream pipeline
            out.writeUTF(String.valueOf(System.getProperty("java.version")));
            out.writeUTF(String.valueOf(System.getProperty("java.vm.version")));
            out.writeUTF(String.valueOf(System.getProperty("java.vm.name")));
            out.writeUTF(VectorMath.S.vectorShape().toString());
            out.writeInt(VectorMath.S.length());
            out.writeInt(staticN);
            out.writeInt(expr.sources());
            out.writeInt(expr.scalars());
            out.writeInt(expr.nodes().size());
            for (Expr.Node n : expr.nodes()) {
                out.writeUTF(n.fn().name());
                out.writeInt(n.index());
                out.writeInt(n.args().length);
                for (int a : n.args()) {
                    out.writeInt(a);
                }
                out.writeInt(n.attrs().length);
                for (float f : n.attrs()) {
                    out.writeInt(Float.floatToRawIntBits(f));
                }
            }
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array stream does not fail
        }
    }

    /**
     * What generated classes depend on beyond their expressions, for the backend's cache identity: the
     * generator's fingerprint and the vector species (a blob made at another width never matches).
     */
    public static String identity() {
        return "codegen " + HexFormat.of().formatHex(Fingerprint.VALUE) + " " + VectorMath.S.vectorShape()
                + "x" + VectorMath.S.length();
    }

    /**
     * CRC-32 and length of each class file generated code depends on, computed once. Not a security
     * check (blobs are sealed by the runtime): it tells generator builds apart, and zlib's
     * native CRC costs a fresh JVM well under a millisecond where an interpreted SHA-256 took several.
     */
    private static final class Fingerprint {
        static final byte[] VALUE = compute();

        private static byte[] compute() {
            java.nio.ByteBuffer out = java.nio.ByteBuffer.allocate(3 * Long.BYTES * 2);
            for (Class<?> c : new Class<?>[] {RowKernelGenerator.class, VectorMath.class, RowKernel.class}) {
                java.util.zip.CRC32 crc = new java.util.zip.CRC32();
                long length = -1;
                try (InputStream in = c.getResourceAsStream(c.getSimpleName() + ".class")) {
                    byte[] bytes = in == null ? c.getName().getBytes(java.nio.charset.StandardCharsets.UTF_8)
                            : in.readAllBytes();
                    crc.update(bytes);
                    length = bytes.length;
                } catch (IOException e) {
                    crc.update(c.getName().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                }
                out.putLong(crc.getValue()).putLong(length);
            }
            return out.array();
        }
    }

    /**
     * Code the JVM (or the ClassFile API) refuses is a compile error naming the partition, never a crash:
     * the runtime then gives the partition's ops to the other backends.
     */
    private UnsupportedFeatureException rejectedCode(Expr expr, String what, Throwable e) {
        rejected.incrementAndGet();
        return new UnsupportedFeatureException(what + ": the JVM rejected the code generated for " + expr.nodes()
                + " (" + e + "); the partition cannot be compiled by the graph compiler");
    }

    /** The class file of an expression's kernel (package-visible for tests that feed it to the verifier). */
    static byte[] generate(Expr expr, int staticN) {
        ClassDesc self = ClassDesc.of(RowKernelGenerator.class.getPackageName() + ".Fused");
        ClassHierarchyResolver resolver = ClassHierarchyResolver.defaultResolver()
                .orElse(ClassHierarchyResolver.ofClassLoading(RowKernelGenerator.class.getClassLoader()));
        return ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(resolver)).build(self, cb -> {
            cb.withFlags(ClassFile.ACC_PUBLIC | ClassFile.ACC_FINAL | ClassFile.ACC_SYNTHETIC);
            cb.withInterfaceSymbols(CD_ROW_KERNEL);
            cb.withMethodBody(INIT_NAME, MTD_void, ClassFile.ACC_PUBLIC,
                    code -> code.aload(0).invokespecial(CD_Object, INIT_NAME, MTD_void).return_());
            cb.withMethodBody("apply", APPLY, ClassFile.ACC_PUBLIC | ClassFile.ACC_FINAL,
                    code -> body(code, expr, staticN));
        });
    }

    private static void body(CodeBuilder code, Expr expr, int staticN) {
        List<Expr.Node> nodes = expr.nodes();
        int[] slot = new int[nodes.size()];
        int[] arraySlot = new int[expr.sources()];
        int[] offSlot = new int[expr.sources()];
        for (int k = 0; k < expr.sources(); k++) {
            arraySlot[k] = code.allocateLocal(java.lang.classfile.TypeKind.REFERENCE);
            offSlot[k] = code.allocateLocal(java.lang.classfile.TypeKind.INT);
            code.aload(SRC).loadConstant(k).aaload().astore(arraySlot[k]);
            code.aload(OFF).loadConstant(k).iaload().istore(offSlot[k]);
        }
        int vl = code.allocateLocal(java.lang.classfile.TypeKind.INT);
        code.getstatic(CD_VECTOR_MATH, "S", CD_SPECIES)
                .invokeinterface(CD_SPECIES, "length", MethodTypeDesc.of(CD_int)).istore(vl);
        // hoisted leaves: uniform over the row
        for (int i = 0; i < nodes.size(); i++) {
            Expr.Node n = nodes.get(i);
            boolean hoisted = true;
            switch (n.fn()) {
                case SCALAR -> code.aload(SCALARS).loadConstant(n.index()).faload();
                case CONSTANT -> code.loadConstant(n.attrs()[0]);
                case ROW_INDEX -> code.iload(ROW).i2f();
                default -> hoisted = false;
            }
            if (hoisted) {
                slot[i] = code.allocateLocal(java.lang.classfile.TypeKind.REFERENCE);
                code.invokestatic(CD_VECTOR_MATH, "broadcast", BROADCAST).astore(slot[i]);
            }
        }
        int j = code.allocateLocal(java.lang.classfile.TypeKind.INT);
        for (int i = 0; i < nodes.size(); i++) {
            if (slot[i] == 0) {
                slot[i] = code.allocateLocal(java.lang.classfile.TypeKind.REFERENCE);
            }
        }
        code.iconst_0().istore(j);
        Label top = code.newLabel();
        Label end = code.newLabel();
        code.labelBinding(top);
        code.iload(j);
        if (staticN > 0) {
            code.loadConstant(staticN);
        } else {
            code.iload(N);
        }
        code.if_icmpge(end);
        for (int i = 0; i < nodes.size(); i++) {
            Expr.Node n = nodes.get(i);
            switch (n.fn()) {
                case SCALAR, CONSTANT, ROW_INDEX -> {
                    continue; // hoisted
                }
                case SOURCE -> code.getstatic(CD_VECTOR_MATH, "S", CD_SPECIES).aload(arraySlot[n.index()])
                        .iload(offSlot[n.index()]).iload(j).iadd()
                        .invokestatic(CD_FLOAT_VECTOR, "fromArray", FROM_ARRAY);
                case COL_INDEX -> code.iload(COL).iload(j).iadd().invokestatic(CD_VECTOR_MATH, "index", INDEX);
                default -> call(code, n, slot);
            }
            code.astore(slot[i]);
        }
        code.aload(slot[nodes.size() - 1]).aload(arraySlot[0]).iload(offSlot[0]).iload(j).iadd()
                .invokevirtual(CD_FLOAT_VECTOR, "intoArray", INTO_ARRAY);
        code.iload(j).iload(vl).iadd().istore(j);
        code.goto_(top);
        code.labelBinding(end);
        code.return_();
    }

    private static void call(CodeBuilder code, Expr.Node n, int[] slot) {
        ClassDesc[] params = new ClassDesc[n.args().length + n.attrs().length];
        int p = 0;
        for (int a : n.args()) {
            code.aload(slot[a]);
            params[p++] = CD_FLOAT_VECTOR;
        }
        for (float f : n.attrs()) {
            code.loadConstant(f);
            params[p++] = CD_float;
        }
        code.invokestatic(CD_VECTOR_MATH, n.fn().method(), MethodTypeDesc.of(CD_FLOAT_VECTOR, params));
    }

    private static ClassDesc desc(Class<?> c) {
        return c.describeConstable().orElseThrow();
    }

    /** Whether every function of the expression has its VectorMath method (checked by tests). */
    static boolean covers(Fn fn) {
        if (fn.isLeaf()) {
            return true;
        }
        Class<?>[] params = new Class<?>[fn.arity() + fn.attrCount()];
        for (int i = 0; i < params.length; i++) {
            params[i] = i < fn.arity() ? FloatVector.class : float.class;
        }
        try {
            return VectorMath.class.getMethod(fn.method(), params).getReturnType() == FloatVector.class;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
