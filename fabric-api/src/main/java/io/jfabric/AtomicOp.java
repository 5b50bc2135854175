package io.jfabric;

/**
 * Mirrors {@code enum fi_op} (fi_atomic(3)): what an atomic operation does to each target element, with
 * libfabric's numeric values. {@code dst} is the target element, {@code src} the operand, {@code cmp} the
 * compare operand; the fetch and compare calls return the target's value from before the operation.
 */
public enum AtomicOp {
    /** {@code FI_MIN}: {@code if (dst > src) dst = src}. */
    MIN(0),
    /** {@code FI_MAX}: {@code if (dst < src) dst = src}. */
    MAX(1),
    /** {@code FI_SUM}: {@code dst += src}. */
    SUM(2),
    /** {@code FI_PROD}: {@code dst *= src}. */
    PROD(3),
    /** {@code FI_LOR}: {@code dst = dst || src}. */
    LOR(4),
    /** {@code FI_LAND}: {@code dst = dst && src}. */
    LAND(5),
    /** {@code FI_BOR}: {@code dst |= src}. */
    BOR(6),
    /** {@code FI_BAND}: {@code dst &= src}. */
    BAND(7),
    /** {@code FI_LXOR}: {@code dst = (dst && !src) || (!dst && src)}. */
    LXOR(8),
    /** {@code FI_BXOR}: {@code dst ^= src}. */
    BXOR(9),
    /** {@code FI_ATOMIC_READ}: fetch only; the target is unchanged. */
    ATOMIC_READ(10),
    /** {@code FI_ATOMIC_WRITE}: {@code dst = src}. */
    ATOMIC_WRITE(11),
    /** {@code FI_CSWAP}: {@code if (cmp == dst) dst = src}. */
    CSWAP(12),
    /** {@code FI_CSWAP_NE}: {@code if (cmp != dst) dst = src}. */
    CSWAP_NE(13),
    /** {@code FI_CSWAP_LE}: {@code if (cmp <= dst) dst = src}. */
    CSWAP_LE(14),
    /** {@code FI_CSWAP_LT}: {@code if (cmp < dst) dst = src}. */
    CSWAP_LT(15),
    /** {@code FI_CSWAP_GE}: {@code if (cmp >= dst) dst = src}. */
    CSWAP_GE(16),
    /** {@code FI_CSWAP_GT}: {@code if (cmp > dst) dst = src}. */
    CSWAP_GT(17),
    /** {@code FI_MSWAP}: {@code dst = (src & cmp) | (dst & ~cmp)}. */
    MSWAP(18);

    private static final AtomicOp[] BY_VALUE = values();

    private final int value;

    AtomicOp(int value) {
        this.value = value;
    }

    /**
     * libfabric's value.
     *
     * @return the {@code enum fi_op} value
     */
    public int value() {
        return value;
    }

    /**
     * The operation of a libfabric value.
     *
     * @param value an {@code enum fi_op} value
     * @return the operation, or null for a value outside FI_MIN .. FI_MSWAP
     */
    public static AtomicOp of(int value) {
        return value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
    }

    /**
     * The name fi_tostr prints.
     *
     * @return e.g. {@code FI_SUM}, {@code FI_ATOMIC_READ}
     */
    public String cName() {
        return "FI_" + name();
    }
}
