package io.jfabric.netty.grpc;

import io.grpc.MethodDescriptor;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** gRPC messages as plain byte arrays: no protobuf code generation in the tests and the benchmark. */
public final class ByteArrayMarshaller implements MethodDescriptor.Marshaller<byte[]> {
    public static final ByteArrayMarshaller INSTANCE = new ByteArrayMarshaller();

    private ByteArrayMarshaller() {
    }

    /** A method of service {@code service} whose request and response are byte arrays. */
    public static MethodDescriptor<byte[], byte[]> method(String service, String name, MethodDescriptor.MethodType type) {
        return MethodDescriptor.<byte[], byte[]>newBuilder().setType(type)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(service, name))
                .setRequestMarshaller(INSTANCE).setResponseMarshaller(INSTANCE).build();
    }

    @Override
    public InputStream stream(byte[] value) {
        return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
        try {
            return stream.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
