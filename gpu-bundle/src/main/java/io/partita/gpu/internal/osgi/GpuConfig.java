package io.partita.gpu.internal.osgi;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import io.partita.gpu.internal.GpuBackend;

/** Config Admin settings of PID {@code io.partita.gpu}. */
@ObjectClassDefinition(name = "Partita GPU engine", description = "OpenCL devices offered as engines of kind gpu.")
@interface GpuConfig {

    @AttributeDefinition(name = "Enabled", description = "When false the gpu engine claims nothing and compiles nothing.")
    boolean enabled() default true;

    @AttributeDefinition(name = "Devices", description = "Devices that become engines gpu.0, gpu.1, ... in this order: "
            + "comma-separated positions in discovery order (as 'partita backends' lists them with no selection) or parts"
            + " of device names, e.g. '1,0' or 'NVIDIA'. Empty: every device.")
    String devices() default "";

    @AttributeDefinition(name = "MatMul kernel", description = "auto (MatMul tiled in local memory and direct Convolution"
            + " on GPUs; register rows and implicit-GEMM Convolution on CPU devices such as PoCL), tiled or rows; applies"
            + " to partitions compiled afterwards.")
    String matmul_kernel() default "auto";

    @AttributeDefinition(name = "Rank", description = "Service ranking: backends with a higher rank claim ops first.")
    int service_ranking() default GpuBackend.DEFAULT_RANK;
}
