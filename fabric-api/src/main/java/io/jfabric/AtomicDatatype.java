package io.jfabric;

/**
 * Mirrors {@code enum fi_datatype} (fi_atomic(3)): the element type of an atomic operation, with libfabric's
 * numeric values. Elements are in the host's byte order.
 */
public enum AtomicDatatype {
    /** {@code FI_INT8}. */
    INT8(0, 1),
    /** {@code FI_UINT8}. */
    UINT8(1, 1),
    /** {@code FI_INT16}. */
    INT16(2, 2),
    /** {@code FI_UINT16}. */
    UINT16(3, 2),
    /** {@code FI_INT32}. */
    INT32(4, 4),
    /** {@code FI_UINT32}. */
    UINT32(5, 4),
    /** {@code FI_INT64}. */
    INT64(6, 8),
    /** {@code FI_UINT64}. */
    UINT64(7, 8),
    /** {@code FI_FLOAT}: IEEE 754 binary32. */
    FLOAT(8, 4),
    /** {@code FI_DOUBLE}: IEEE 754 binary64. */
    DOUBLE(9, 8),
    /** {@code FI_FLOAT_COMPLEX}: two floats, real part first. */
    FLOAT_COMPLEX(10, 8),
    /** {@code FI_DOUBLE_COMPLEX}: two doubles, real part first. */
    DOUBLE_COMPLEX(11, 16),
    /** {@code FI_LONG_DOUBLE}: C's long double (x86-64: 80-bit extended precision in 16 bytes). */
    LONG_DOUBLE(12, 16),
    /** {@code FI_LONG_DOUBLE_COMPLEX}: two long doubles. */
    LONG_DOUBLE_COMPLEX(13, 32);

    private static final AtomicDatatype[] BY_VALUE = values();

    private final int value;
    private final int size;

    AtomicDatatype(int value, int size) {
        this.value = value;
        this.size = size;
    }

    /**
     * libfabric's value.
     *
     * @return the {@code enum fi_datatype} value
     */
    public int value() {
        return value;
    }

    /**
     * The size of one element.
     *
     * @return bytes
     */
    public int size() {
        return size;
    }

    /**
     * The datatype of a libfabric value.
     *
     * @param value an {@code enum fi_datatype} value
     * @return the datatype, or null for a value outside FI_INT8 .. FI_LONG_DOUBLE_COMPLEX
     */
    public static AtomicDatatype of(int value) {
        return value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
    }

    /**
     * The name fi_tostr prints.
     *
     * @return e.g. {@code FI_UINT64}
     */
    public String cName() {
        return "FI_" + name();
    }
}
