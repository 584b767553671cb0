/* elf-corrupt MODE IN OUT: copies the linked x86-64 file IN to OUT with
   one defect of the kind a binary rewriter can leave, for t-bolt-verify
   (a stand-in llvm-bolt that calls it):
     none        no change
     relrent     DT_RELRENT taken out of the dynamic table
     relrsz      DT_RELRSZ set to garbage
     unknown     an entry of an unknown tag where DT_NULL was
     init-array  DT_INIT_ARRAY[0] pointing one byte past frame_dummy
     pointer     ops[1] pointing at ops[0]'s function
     stray       a byte of counter (data no relocation covers) changed
     overlap     the second PT_LOAD moved over the first
     misalign    the second PT_LOAD's offset off its alignment
     interp      PT_INTERP naming another loader
     symbol      the dynamic symbol printf renamed rintf (the tail of its
                 name in .dynstr): the loader cannot bind it
     relacount   the first relocation of DT_RELA swapped with the last
                 (DT_RELACOUNT says the first ones are relative)
     rela-order  the last two relocations of DT_RELA swapped (no defect:
                 the loader takes them in any order)
   Exit status 0, or 1 with a message when IN has not what MODE needs. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *image;
static size_t size;

static void die(const char *what)
{
	fprintf(stderr, "elf-corrupt: %s\n", what);
	exit(1);
}

static Elf64_Ehdr *header(void)
{
	return (Elf64_Ehdr *)image;
}

static Elf64_Phdr *phdr(size_t i)
{
	return (Elf64_Phdr *)(image + header()->e_phoff) + i;
}

static Elf64_Phdr *segment(unsigned type, int nth)
{
	size_t i;

	for (i = 0; i < header()->e_phnum; i++)
		if (phdr(i)->p_type == type && nth-- == 0)
			return phdr(i);
	die("no such segment");
	return NULL;
}

/* The file bytes at a virtual address. */
static unsigned char *at(Elf64_Addr address)
{
	size_t i;

	for (i = 0; i < header()->e_phnum; i++) {
		Elf64_Phdr *p = phdr(i);

		if (p->p_type == PT_LOAD && address >= p->p_vaddr && address < p->p_vaddr + p->p_filesz)
			return image + p->p_offset + (address - p->p_vaddr);
	}
	die("an address outside the file");
	return NULL;
}

static Elf64_Dyn *dynamic(void)
{
	return (Elf64_Dyn *)(image + segment(PT_DYNAMIC, 0)->p_offset);
}

static Elf64_Dyn *entry(Elf64_Sxword tag)
{
	Elf64_Dyn *d;

	for (d = dynamic(); d->d_tag != DT_NULL; d++)
		if (d->d_tag == tag)
			return d;
	die("no such dynamic tag");
	return NULL;
}

static Elf64_Addr symbol(const char *name)
{
	Elf64_Shdr *sh = (Elf64_Shdr *)(image + header()->e_shoff);
	size_t i, k;

	for (i = 0; i < header()->e_shnum; i++) {
		Elf64_Sym *syms;
		const char *names;

		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		syms = (Elf64_Sym *)(image + sh[i].sh_offset);
		names = (const char *)image + sh[sh[i].sh_link].sh_offset;
		for (k = 0; k < sh[i].sh_size / sizeof(Elf64_Sym); k++)
			if (!strcmp(names + syms[k].st_name, name))
				return syms[k].st_value;
	}
	die("no such symbol");
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode;
	FILE *f;
	long n;

	if (argc != 4)
		die("usage: elf-corrupt MODE IN OUT");
	mode = argv[1];
	if (!(f = fopen(argv[2], "rb")) || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET))
		die("cannot read IN");
	size = (size_t)n;
	image = malloc(size);
	if (!image || fread(image, 1, size, f) != size)
		die("cannot read IN");
	fclose(f);

	if (!strcmp(mode, "none")) {
	} else if (!strcmp(mode, "relrent")) {
		Elf64_Dyn *d = entry(DT_RELRENT);

		do
			d[0] = d[1];
		while ((d++)->d_tag != DT_NULL);
	} else if (!strcmp(mode, "relrsz")) {
		entry(DT_RELRSZ)->d_un.d_val = 0x101700;
	} else if (!strcmp(mode, "unknown")) {
		Elf64_Dyn *d = dynamic();

		while (d->d_tag != DT_NULL)
			d++;
		d->d_tag = 0x7534;
		d->d_un.d_val = 0x7538;
		if ((unsigned char *)(d + 1) >= image + segment(PT_DYNAMIC, 0)->p_offset + segment(PT_DYNAMIC, 0)->p_filesz)
			die("no room in the dynamic table");
		d[1].d_tag = DT_NULL;
	} else if (!strcmp(mode, "init-array")) {
		unsigned char *slot = at(entry(DT_INIT_ARRAY)->d_un.d_ptr);
		Elf64_Addr v = symbol("frame_dummy") + 1;

		memcpy(slot, &v, 8);
	} else if (!strcmp(mode, "pointer")) {
		Elf64_Addr ops = symbol("ops");

		memcpy(at(ops + 8), at(ops), 8);
	} else if (!strcmp(mode, "stray")) {
		*at(symbol("counter")) ^= 0x40;
	} else if (!strcmp(mode, "overlap")) {
		Elf64_Phdr *second = segment(PT_LOAD, 1);

		second->p_vaddr = second->p_paddr = segment(PT_LOAD, 0)->p_vaddr + 0x100;
		second->p_offset = 0x100;
	} else if (!strcmp(mode, "misalign")) {
		segment(PT_LOAD, 1)->p_offset += 8;
	} else if (!strcmp(mode, "interp")) {
		Elf64_Phdr *p = segment(PT_INTERP, 0);

		image[p->p_offset + p->p_filesz - 2] ^= 1;
	} else if (!strcmp(mode, "symbol")) {
		Elf64_Sym *sym = (Elf64_Sym *)at(entry(DT_SYMTAB)->d_un.d_ptr);
		const char *names = (const char *)at(entry(DT_STRTAB)->d_un.d_ptr);

		while (strcmp(names + sym->st_name, "printf"))
			sym++;
		sym->st_name++;
	} else if (!strcmp(mode, "relacount") || !strcmp(mode, "rela-order")) {
		Elf64_Rela *rela = (Elf64_Rela *)at(entry(DT_RELA)->d_un.d_ptr), keep;
		size_t n = entry(DT_RELASZ)->d_un.d_val / sizeof(Elf64_Rela), a = mode[4] == 'c' ? 0 : n - 2;

		keep = rela[a];
		rela[a] = rela[n - 1];
		rela[n - 1] = keep;
	} else {
		die("unknown mode");
	}
	if (!(f = fopen(argv[3], "wb")) || fwrite(image, 1, size, f) != size || fclose(f))
		die("cannot write OUT");
	return 0;
}
