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
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.backend.compiler.internal.expr.Expr;
import io.partita.backend.compiler.internal.expr.Fn;
import io.partita.cache.DeviceKind;
import io.partita.cache.PersistentCache;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Generates one class per fused expression with the JDK's ClassFile API and defines it as a
 * hidden class (unloadable once no kernel refers to it). The class's loop keeps every
 * intermediate in a vector register: one pass over the row whatever the chain's length. Leaves
 * uniform over the row (scalars, constants, the row index) are hoisted out of the loop; a row
 * length known at compile time is a constant in the code. Equal expressions share a class.
 *
 * <p>With a {@link PersistentCache} enabled for engine kind cpu, a class missing in memory is first
 * looked up on disk (so a second process skips generation) and a generated one is stored there. Stored
 * bytes are defined like generated ones, so the JVM verifies them; bytes it refuses are removed from
 * the store and generated afresh.
 */
public final class RowKernelGenerator {
    private static final Logger LOG = LoggerFactory.getLogger(RowKernelGenerator.class);
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

    /** Changes whenever the key's layout does (an old entry then never matches). */
    private static final String KEY_FORMAT = "partita.compiler.rowkernel/1";
    /** Partita's version; the fingerprint of the generator's own classes covers unreleased changes. */
    private static final String PARTITA_VERSION = "0.1.0";

    private final ConcurrentHashMap<Key, RowKernel> kernels = new ConcurrentHashMap<>();
    private final AtomicLong generated = new AtomicLong();
    private final AtomicLong loaded = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong generatedBytes = new AtomicLong();
    private final AtomicLong generateNanos = new AtomicLong();
    private final AtomicLong fallbacks = new AtomicLong();
    private final PersistentCache persistent;
    private final String backend;

    private record Key(Expr expr, int staticN) {
    }

    /**
     * What code generation has cost so far.
     *
     * @param generated classes generated here
     * @param loaded    classes defined from the persistent cache instead
     * @param bytes     class bytes defined (generated or loaded)
     * @param nanos     time spent generating, loading and defining
     * @param fallbacks expressions running interpreted (their class was refused)
     * @param refused   stored classes the JVM refused (removed from the store and generated again)
     */
    public record Stats(long generated, long loaded, long bytes, long nanos, long fallbacks, long refused) {
        /** Classes defined, generated or loaded. */
        public long classes() {
            return generated + loaded;
        }
    }

    /** A generator keeping its classes in memory only. */
    public RowKernelGenerator() {
        this(null, "compiler");
    }

    /**
     * @param persistent the on-disk store (used when enabled for engine kind cpu), or null
     * @param backend    the backend id and version, part of every stored class's key
     */
    public RowKernelGenerator(PersistentCache persistent, String backend) {
        this.persistent = persistent;
        this.backend = java.util.Objects.requireNonNull(backend, "backend");
    }

    /**
     * The kernel for an expression, generated on first use.
     *
     * @param staticN the row length when known at compile time (a constant in the code), else 0
     * @param what    names the partition in the warning if generation fails
     */
    public RowKernel kernel(Expr expr, int staticN, String what) {
        return kernels.computeIfAbsent(new Key(expr, staticN), k -> define(k, what));
    }

    public Stats stats() {
        return new Stats(generated.get(), loaded.get(), generatedBytes.get(), generateNanos.get(), fallbacks.get(),
                refused.get());
    }

    /** Forgets generated classes (they unload once no compiled partition uses them). */
    public void clear() {
        kernels.clear();
    }

    private RowKernel define(Key key, String what) {
        long t0 = System.nanoTime();
        try {
            byte[] storeKey = null;
            if (persistent != null && persistent.enabled(DeviceKind.CPU)) {
                storeKey = persistentKey(key.expr(), key.staticN(), backend);
                RowKernel k = fromStore(storeKey, key.expr(), what);
                if (k != null) {
                    return k;
                }
            }
            byte[] bytes = generate(key.expr(), key.staticN());
            RowKernel k = load(bytes, key.expr(), what);
            if (storeKey != null && !(k instanceof InterpretedRowKernel)) {
                persistent.store(DeviceKind.CPU, storeKey, List.of(bytes));
            }
            return k;
        } catch (IllegalArgumentException | IllegalStateException e) {
            return fallBack(key.expr(), what, e);
        } finally {
            generateNanos.addAndGet(System.nanoTime() - t0);
        }
    }

    /**
     * The kernel defined from the bytes stored under this key, or null (not stored, or refused). The
     * bytes go through the same defineHiddenClass as generated ones: the JVM verifies them, and a
     * class it refuses is never run.
     */
    private RowKernel fromStore(byte[] storeKey, Expr expr, String what) {
        Optional<List<byte[]>> found = persistent.load(DeviceKind.CPU, storeKey);
        if (found.isEmpty()) {
            return null;
        }
        List<byte[]> blobs = found.get();
        try {
            if (blobs.size() != 1) {
                throw new ClassFormatError("expected one class file, found " + blobs.size() + " blobs");
            }
            RowKernel k = defineHidden(blobs.get(0));
            loaded.incrementAndGet();
            generatedBytes.addAndGet(blobs.get(0).length);
            return k;
        } catch (ReflectiveOperationException | LinkageError | ClassCastException e) {
            refused.incrementAndGet();
            LOG.warn("{}: the class stored for {} in persistent cache entry {} was refused ({}); generating it again",
                    what, expr.nodes(), entryName(storeKey), e.toString());
            persistent.remove(DeviceKind.CPU, storeKey); // so the fresh class replaces it
            return null;
        }
    }

    /** Defines generated bytes as a hidden class; bytes the JVM refuses give the interpreted kernel. */
    RowKernel load(byte[] bytes, Expr expr, String what) {
        try {
            RowKernel k = defineHidden(bytes);
            generated.incrementAndGet();
            generatedBytes.addAndGet(bytes.length);
            return k;
        } catch (ReflectiveOperationException | LinkageError | ClassCastException e) {
            return fallBack(expr, what, e);
        }
    }

    private static RowKernel defineHidden(byte[] bytes) throws ReflectiveOperationException {
        MethodHandles.Lookup hidden = MethodHandles.lookup().defineHiddenClass(bytes, true);
        return (RowKernel) hidden.lookupClass().getDeclaredConstructor().newInstance();
    }

    /** The entry's place in the store's layout (DIR/bucket), for the warning. */
    private String entryName(byte[] storeKey) {
        String dir = persistent.directory().map(Object::toString).orElse("?");
        return dir + "/" + HexFormat.of().formatHex(sha256().digest(storeKey), 0, 8);
    }

    /**
     * Everything the class bytes depend on: the key format, backend and Partita versions, a
     * fingerprint of the generator's own classes (any change to the code generation changes it), the
     * JVM version, the vector species the kernels run at, and the expression in full (functions,
     * arguments, attributes as float bits, indices) with the static row length.
     */
    static byte[] persistentKey(Expr expr, int staticN, String backend) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeUTF(KEY_FORMAT);
            out.writeUTF(backend);
            out.writeUTF(PARTITA_VERSION);
            out.write(Fingerprint.VALUE);
            out.writeUTF(Runtime.version().toString());
            out.writeUTF(String.valueOf(System.getProperty("java.specification.version")));
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

    /** SHA-256 over the class files generated code depends on, computed once. */
    private static final class Fingerprint {
        static final byte[] VALUE = compute();

        private static byte[] compute() {
            MessageDigest d = sha256();
            for (Class<?> c : new Class<?>[] {RowKernelGenerator.class, VectorMath.class, RowKernel.class}) {
                try (InputStream in = c.getResourceAsStream(c.getSimpleName() + ".class")) {
                    if (in != null) {
                        d.update(in.readAllBytes());
                    } else {
                        d.update(c.getName().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    }
                } catch (IOException e) {
                    d.update(c.getName().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                }
            }
            return d.digest();
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }

    private RowKernel fallBack(Expr expr, String what, Throwable e) {
        // A class the verifier rejects must never take the JVM down: the same expression runs
        // interpreted, slower but identical.
        fallbacks.incrementAndGet();
        LOG.warn("{}: generated code for {} was rejected ({}); running it interpreted", what, expr.nodes(), e.toString());
        return new InterpretedRowKernel(expr);
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
