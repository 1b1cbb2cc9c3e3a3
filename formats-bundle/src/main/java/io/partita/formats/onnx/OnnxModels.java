package io.partita.formats.onnx;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;

import org.osgi.annotation.versioning.ProviderType;

import io.partita.graph.OpSchemaRegistry;

/**
 * Reads ONNX files: models ({@code ModelProto}) into {@link OnnxModel}s and tensors
 * ({@code TensorProto}, as in ONNX test data sets) into {@link OnnxTensor}s. Supported: the
 * default operator set, versions 6 to 25, with the ops listed in the documentation; everything
 * else is reported by {@link UnsupportedOnnxException} naming the op, opset and node.
 */
public final class OnnxModels {
    /** The lowest and highest default-domain opset versions the importer translates. */
    public static final int MIN_OPSET = 6;
    public static final int MAX_OPSET = 27;

    /**
     * The decoder and translator of this bundle's private packages, found with
     * {@link ServiceLoader} through this bundle's own class loader (also in OSGi), so the exported
     * package names no implementation class.
     */
    private static final Decoder DECODER = ServiceLoader.load(Decoder.class, OnnxModels.class.getClassLoader())
            .findFirst().orElseThrow(() -> new IllegalStateException("the formats bundle has no "
                    + Decoder.class.getName() + " in META-INF/services: the jar is damaged"));

    /** What {@link OnnxModels} delegates to; implemented by the formats bundle only. */
    @ProviderType
    public interface Decoder {
        /** @throws OnnxImportException naming the source and the offending item */
        OnnxModel read(OpSchemaRegistry schemas, byte[] bytes, String source, Map<String, Long> dimValues);

        /** @throws OnnxImportException when the bytes are not a TensorProto */
        OnnxTensor readTensor(byte[] bytes, String source);

        /** @throws OnnxImportException when the bytes are not a model */
        List<String> nodeOpTypes(byte[] bytes, String source);

        /** @throws OnnxImportException when the bytes are not a model */
        Map<String, List<String>> inputDimParams(byte[] bytes, String source);
    }

    private OnnxModels() {
    }

    /**
     * Reads a model. Each translated op is validated and its shapes inferred with the runtime's
     * op rules ({@link io.partita.graph.GraphRuntime#opSchemas()}).
     *
     * @throws OnnxImportException naming the file and the offending item
     */
    public static OnnxModel read(OpSchemaRegistry schemas, Path file) {
        return read(schemas, readBytes(file), file.toString(), Map.of());
    }

    /**
     * Reads a model whose graph inputs have symbolic dims (e.g. a batch dim {@code N}): each symbolic
     * dim takes its value from {@code dimValues} (by dim_param name); one without a value is reported.
     */
    public static OnnxModel read(OpSchemaRegistry schemas, Path file, Map<String, Long> dimValues) {
        return read(schemas, readBytes(file), file.toString(), dimValues);
    }

    /** Reads a model from bytes; {@code source} names it in messages. */
    public static OnnxModel read(OpSchemaRegistry schemas, byte[] bytes, String source) {
        return read(schemas, bytes, source, Map.of());
    }

    public static OnnxModel read(OpSchemaRegistry schemas, byte[] bytes, String source, Map<String, Long> dimValues) {
        Objects.requireNonNull(schemas, "op schemas (GraphRuntime.opSchemas())");
        return DECODER.read(schemas, bytes, source, dimValues);
    }

    /**
     * The distinct op types of a model's main graph, in node order, without translating anything:
     * what a test report names when the import itself is refused.
     *
     * @throws OnnxImportException when the bytes are not a model
     */
    public static List<String> nodeOpTypes(byte[] bytes, String source) {
        return DECODER.nodeOpTypes(bytes, source);
    }

    /**
     * The symbolic dim names of each graph input with a shape, in the model's order, without
     * translating anything: per input one entry per dim, the dim_param name or {@code null} for a
     * fixed (or anonymous) dim. Callers that choose a batch size use it to find the names to give
     * {@link #read(OpSchemaRegistry, byte[], String, Map)} values for.
     *
     * @throws OnnxImportException when the bytes are not a model
     */
    public static Map<String, List<String>> inputDimParams(byte[] bytes, String source) {
        return DECODER.inputDimParams(bytes, source);
    }

    /** Reads a TensorProto file. */
    public static OnnxTensor readTensor(Path file) {
        return readTensor(readBytes(file), file.toString());
    }

    public static OnnxTensor readTensor(byte[] bytes, String source) {
        return DECODER.readTensor(bytes, source);
    }

    private static byte[] readBytes(Path file) {
        try {
            // protobuf messages, and so ONNX files with their values inside, end at 2 GiB; a larger
            // file would only fail as an OutOfMemoryError from readAllBytes.
            long size = Files.size(file);
            if (size > Integer.MAX_VALUE - 8) {
                throw new OnnxImportException("ONNX file " + file + " has " + size + " bytes; a model file holds at most 2 GiB"
                        + " (the protobuf limit), and values stored outside it (external data) are not read");
            }
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new OnnxImportException("cannot read ONNX file " + file + ": " + e, e);
        }
    }
}
