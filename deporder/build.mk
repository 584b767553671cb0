# deporder: the closure of a link and the orders made from traces of real
# runs (the main tool).
DEPORDER_OBJS = deporder/binding.o deporder/main.o deporder/inputs.o deporder/closure.o \
	deporder/sections.o deporder/order.o deporder/ccdriver.o deporder/hot.o deporder/pack.o \
	deporder/evaluate.o deporder/layout.o deporder/placement.o
PROGS += deporder/deporder
BIN_PROGS += deporder/deporder
MAN1 += deporder/deporder.1
OBJS += $(DEPORDER_OBJS)

deporder/deporder: $(DEPORDER_OBJS) $(LIB)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS_ELF)
