// Prints the IRELATIVE relocations of this static program, which the test
// leaves in the file bytes past p_filesz of its first, read-only segment:
// Linux keeps those bytes, and the C library applies the relocations from
// them before main (strlen and memcpy are chosen so).
#include <elf.h>
#include <stdio.h>
#include <string.h>

extern const Elf64_Rela __rela_iplt_start[] __attribute__((weak));
extern const Elf64_Rela __rela_iplt_end[] __attribute__((weak));

int main(int argc, char** argv) {
  // Through volatile: the compiler must not know the table is empty.
  const Elf64_Rela* volatile begin = __rela_iplt_start;
  const Elf64_Rela* volatile end = __rela_iplt_end;
  printf("%zu IRELATIVE relocations\n", (size_t)(end - begin));
  for (const Elf64_Rela* r = begin; r < end; ++r)
    printf("%#llx type %llu resolver %#llx\n", (unsigned long long)r->r_offset,
           (unsigned long long)ELF64_R_TYPE(r->r_info), (unsigned long long)r->r_addend);
  printf("strlen(argv[0]) > 0: %d\n", argc > 0 && strlen(argv[0]) > 0);
  return 0;
}
