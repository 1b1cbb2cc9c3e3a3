package io.partita.graph.onnx;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import io.partita.runtime.onnx.GraphImporter;
import io.partita.runtime.onnx.TensorValues;
import io.partita.runtime.onnx.proto.ModelDecoder;
import io.partita.runtime.onnx.proto.OnnxFormatException;
import io.partita.runtime.onnx.proto.TensorDecoder;

/**
 * Reads ONNX files: models ({@code ModelProto}) into {@link OnnxModel}s and tensors
 * ({@code TensorProto}, as in ONNX test data sets) into {@link OnnxTensor}s. Supported: the
 * default operator set, versions 13 to 25, with the ops listed in the documentation; everything
 * else is reported by {@link UnsupportedOnnxException} naming the op, opset and node.
 */
public final class OnnxModels {
    /** The lowest and highest default-domain opset versions the importer translates. */
    public static final int MIN_OPSET = 13;
    public static final int MAX_OPSET = 25;

    private OnnxModels() {
    }

    /** @throws OnnxImportException naming the file and the offending item */
    public static OnnxModel read(Path file) {
        return read(readBytes(file), file.toString(), Map.of());
    }

    /**
     * Reads a model whose graph inputs have symbolic dims (e.g. a batch dim {@code N}): each symbolic
     * dim takes its value from {@code dimValues} (by dim_param name); one without a value is reported.
     */
    public static OnnxModel read(Path file, Map<String, Long> dimValues) {
        return read(readBytes(file), file.toString(), dimValues);
    }

    /** Reads a model from bytes; {@code source} names it in messages. */
    public static OnnxModel read(byte[] bytes, String source) {
        return read(bytes, source, Map.of());
    }

    public static OnnxModel read(byte[] bytes, String source, Map<String, Long> dimValues) {
        try {
            return GraphImporter.importModel(ModelDecoder.decode(bytes, source), source, dimValues);
        } catch (OnnxFormatException e) {
            throw new OnnxImportException(e.getMessage(), e);
        }
    }

    /** Reads a TensorProto file. */
    public static OnnxTensor readTensor(Path file) {
        return readTensor(readBytes(file), file.toString());
    }

    public static OnnxTensor readTensor(byte[] bytes, String source) {
        try {
            return TensorValues.toTensor(TensorDecoder.decode(bytes, source), source, "tensor");
        } catch (OnnxFormatException e) {
            throw new OnnxImportException(e.getMessage(), e);
        }
    }

    private static byte[] readBytes(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new OnnxImportException("cannot read ONNX file " + file + ": " + e, e);
        }
    }
}
