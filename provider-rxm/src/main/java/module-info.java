/**
 * ofi_rxm: libfabric's RDM utility provider, layered over any FI_EP_MSG core provider that offers
 * FI_MSG and FI_RMA (tcp now, verbs later), speaking libfabric 1.17's rxm wire protocol.
 */
module io.jfabric.provider.rxm {
    requires io.jfabric;
    requires io.jfabric.util;

    provides io.jfabric.spi.FabricProvider with io.jfabric.provider.rxm.RxmProvider;
}
