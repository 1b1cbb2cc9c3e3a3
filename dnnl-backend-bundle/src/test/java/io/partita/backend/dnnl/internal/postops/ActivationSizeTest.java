package io.partita.backend.dnnl.internal.postops;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.Attributes;
import java.lang.classfile.ClassFile;
import java.lang.classfile.MethodModel;
import java.lang.classfile.attribute.CodeAttribute;

import org.junit.jupiter.api.Test;

/**
 * {@link Activation#apply(jdk.incubator.vector.FloatVector)} is called per vector from the store and
 * post-op loops. HotSpot inlines a hot callee only below {@code FreqInlineSize} (325 bytecodes on
 * x86 and AArch64); above it the call stays a call, each vector crossing it is boxed on the heap, and
 * in C1 code every vector operation runs its Java fallback. This guards the size against a formula
 * written into the switch again.
 */
class ActivationSizeTest {
    private static final int FREQ_INLINE_SIZE = 325;
    private static final String VECTOR_APPLY = "(Ljdk/incubator/vector/FloatVector;)Ljdk/incubator/vector/FloatVector;";

    @Test
    void theVectorApplyStaysSmallEnoughToBeInlined() throws IOException {
        byte[] bytes;
        try (InputStream in = Activation.class.getResourceAsStream("Activation.class")) {
            assertNotNull(in, "Activation.class on the test class path");
            bytes = in.readAllBytes();
        }
        MethodModel apply = ClassFile.of().parse(bytes).methods().stream()
                .filter(m -> m.methodName().equalsString("apply") && m.methodType().equalsString(VECTOR_APPLY))
                .findFirst().orElseThrow();
        int size = apply.findAttribute(Attributes.code()).map(CodeAttribute::codeLength).orElseThrow();
        assertTrue(size < FREQ_INLINE_SIZE, "Activation.apply(FloatVector) is " + size
                + " bytecodes; a hot callee is inlined only below " + FREQ_INLINE_SIZE);
    }
}
