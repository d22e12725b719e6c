/* The instruction samples of famcost: typical instructions of each family
   phybin translates, in Intel syntax, assembled by the host `as`.  Each
   SAMPLE line names its family; the macro puts the instruction's bytes in
   famcost_code and a row {family, text, first byte, end, jcc} in
   famcost_table, between famcost_samples and famcost_samples_end
   (famcost.cpp reads it).
   PAIR rows measure two instructions together; BRANCH rows name the jcc
   that reads the instruction's flags.  Register operands mostly: memory
   operands add the address arithmetic and load of the addressing mode, the
   same for every family, so the families alu_mem and mem take each
   addressing mode, the others a few memory forms.  The rows' counts are
   recorded in tests/insncount/record.txt (bench/README.md). */
  .intel_syntax noprefix

  .section .data.rel.ro.famcost_table, "aw"
  .balign 8
  .globl famcost_samples
famcost_samples:

/* FAMCOST_ROW: the table row of the code between local labels 1 and 2;
   jcc, when given, is the label of a jcc whose condition reads the flags. */
.macro FAMCOST_ROW family:req, text:req, jcc=0
  .pushsection .rodata.famcost_text, "aMS", @progbits, 1
.Lfc_family\@: .asciz "\family"
.Lfc_text\@: .asciz "\text"
  .popsection
  .quad .Lfc_family\@, .Lfc_text\@, 1b, 2b, \jcc
.endm

/* SAMPLE family, instruction */
.macro SAMPLE family:req, insn:vararg
  .pushsection .rodata.famcost_code, "a"
1:
  \insn
2:
  .popsection
  FAMCOST_ROW \family, "\insn"
.endm

/* PAIR family, "first", "second": two instructions measured together. */
.macro PAIR family:req, first:req, second:req
  .pushsection .rodata.famcost_code, "a"
1:
  \first
  \second
2:
  .popsection
  FAMCOST_ROW \family, "\first; \second"
.endm

/* BRANCH family, "instruction", cc: the instruction with its flags read by
   j<cc> in place of jz (the ZF-live figure).  The jcc is assembled apart,
   only for its condition: the meter places it as it places jz. */
.macro BRANCH family:req, insn:req, cc:req
  .pushsection .rodata.famcost_code, "a"
1:
  \insn
2:
  .popsection
  .pushsection .rodata.famcost_jcc, "a"
3:
  j\cc 3b
  .popsection
  FAMCOST_ROW \family, "\insn; j\cc", 3b
.endm

SAMPLE alu, add rax, rbx
SAMPLE alu, add eax, ebx
SAMPLE alu, add rax, 8
SAMPLE alu, sub rax, rbx
SAMPLE alu, sub ecx, 1
SAMPLE alu, adc rax, rbx
SAMPLE alu, sbb eax, eax
SAMPLE alu, and eax, ebx
SAMPLE alu, or rax, rbx
SAMPLE alu, xor eax, eax
SAMPLE alu, xor rax, rbx
SAMPLE alu, cmp rax, rbx
SAMPLE alu, cmp eax, 10
SAMPLE alu, test eax, eax
SAMPLE alu, test al, 1
SAMPLE alu, inc rax
SAMPLE alu, dec ecx
SAMPLE alu, neg rax
SAMPLE alu, not rax
SAMPLE alu, add al, bl
SAMPLE alu, add ax, bx
SAMPLE alu, mov rax, rbx
SAMPLE alu, mov eax, 1
SAMPLE alu, movabs rax, 0x123456789abcdef0
SAMPLE alu, movzx eax, bl
SAMPLE alu, movsx rax, ebx
SAMPLE alu, movsxd rax, dword ptr [rbx]
SAMPLE alu, movsx eax, byte ptr [rbx+1]
SAMPLE alu, cdqe
SAMPLE alu, cqo
SAMPLE alu, lea rax, [rbx+rcx*4+8]
SAMPLE alu, mov rax, [rbx+8]
SAMPLE alu, mov [rbx+8], rax
SAMPLE alu, add rax, [rbx]
SAMPLE alu, add [rbx], eax
SAMPLE alu, xchg rax, rbx
SAMPLE alu, and rax, -16
SAMPLE alu, and eax, 0xff
SAMPLE alu, or rax, 1
SAMPLE alu, xor eax, 0x80000000
SAMPLE alu, add rax, 0x12345678
SAMPLE alu, sub rsp, 0x28
SAMPLE alu, add eax, -1
SAMPLE alu, cmp rax, -1
SAMPLE alu, test rax, rax
SAMPLE alu, test eax, 0x100
SAMPLE alu, sub al, 1
SAMPLE alu, and ax, bx
SAMPLE alu, cmp al, 0x20
SAMPLE alu, cmp ax, bx
SAMPLE alu, adc rax, 1
SAMPLE alu, adc eax, ebx
SAMPLE alu, sbb rax, rbx
SAMPLE alu, sbb ecx, 0
SAMPLE alu, clc
SAMPLE alu, stc
SAMPLE alu, cmc
/* Each addressing mode: [base], [base+disp], [base+index*scale+disp],
   [index*scale+disp], a displacement too large for a load's offset, and
   rip-relative; as the source, as the destination (read-modify-write), with
   an immediate. */
SAMPLE alu_mem, add rax, [rbx+8]
SAMPLE alu_mem, add rax, [rbx+rcx*8+16]
SAMPLE alu_mem, add eax, [rbx+rcx*4]
SAMPLE alu_mem, add rax, [rcx*8+0x1000]
SAMPLE alu_mem, add rax, [rbx+0x12345]
SAMPLE alu_mem, add rax, [rip+0x100]
SAMPLE alu_mem, sub rax, [rbx]
SAMPLE alu_mem, sub eax, [rbx+rcx*4+8]
SAMPLE alu_mem, and rax, [rbx+8]
SAMPLE alu_mem, or eax, [rip+0x100]
SAMPLE alu_mem, xor rax, [rbx+rcx*8]
SAMPLE alu_mem, adc rax, [rbx]
SAMPLE alu_mem, sbb rax, [rbx+8]
SAMPLE alu_mem, cmp rax, [rbx]
SAMPLE alu_mem, cmp eax, [rbx+rcx*4+8]
SAMPLE alu_mem, cmp rax, [rip+0x100]
SAMPLE alu_mem, test [rbx], eax
SAMPLE alu_mem, add [rbx+8], rax
SAMPLE alu_mem, add [rbx+rcx*8+16], rax
SAMPLE alu_mem, add [rip+0x100], eax
SAMPLE alu_mem, sub [rbx], rax
SAMPLE alu_mem, and [rbx+8], eax
SAMPLE alu_mem, or [rbx+rcx*4], eax
SAMPLE alu_mem, xor [rbx], rax
SAMPLE alu_mem, add byte ptr [rbx], al
SAMPLE alu_mem, add word ptr [rbx], ax
SAMPLE alu_mem, add qword ptr [rbx], 1
SAMPLE alu_mem, add dword ptr [rbx+8], 100
SAMPLE alu_mem, sub qword ptr [rbx+rcx*8+16], 8
SAMPLE alu_mem, and dword ptr [rip+0x100], 0xff
SAMPLE alu_mem, or byte ptr [rbx], 1
SAMPLE alu_mem, adc qword ptr [rbx], 0
SAMPLE alu_mem, cmp qword ptr [rbx], 0
SAMPLE alu_mem, cmp dword ptr [rbx+8], 10
SAMPLE alu_mem, cmp byte ptr [rbx+rcx], 0
SAMPLE alu_mem, cmp qword ptr [rip+0x100], 0
SAMPLE alu_mem, test byte ptr [rbx], 1
SAMPLE alu_mem, inc qword ptr [rbx]
SAMPLE alu_mem, dec dword ptr [rbx+rcx*4+8]
SAMPLE alu_mem, neg qword ptr [rbx]
SAMPLE alu_mem, not dword ptr [rbx+8]
SAMPLE alu_mem, imul rax, [rbx+8]
SAMPLE alu_mem, shl dword ptr [rbx], 1
SAMPLE alu_mem, lea rax, [rbx+8]
SAMPLE alu_mem, lea rax, [rbx+rcx]
SAMPLE alu_mem, lea eax, [rbx+rbx*2]
SAMPLE alu_mem, lea rax, [rcx*8]
SAMPLE alu_mem, lea rax, [rip+0x100]
/* Loads and stores of each width and addressing mode. */
SAMPLE mem, mov al, [rbx]
SAMPLE mem, mov ax, [rbx]
SAMPLE mem, mov eax, [rbx]
SAMPLE mem, mov rax, [rbx]
SAMPLE mem, mov rax, [rbx+rcx*8]
SAMPLE mem, mov eax, [rbx+rcx*4+8]
SAMPLE mem, mov rax, [rcx*8+0x1000]
SAMPLE mem, mov rax, [rbx+0x12345]
SAMPLE mem, mov rax, [rip+0x100]
SAMPLE mem, movzx eax, byte ptr [rbx]
SAMPLE mem, movzx eax, word ptr [rbx+rcx*2]
SAMPLE mem, movsx eax, word ptr [rbx]
SAMPLE mem, movsx rax, byte ptr [rbx+rcx]
SAMPLE mem, movsxd rax, dword ptr [rbx+rcx*4]
SAMPLE mem, mov [rbx], al
SAMPLE mem, mov [rbx], ax
SAMPLE mem, mov [rbx], eax
SAMPLE mem, mov [rbx], rax
SAMPLE mem, mov [rbx+rcx*8], rax
SAMPLE mem, mov [rbx+rcx*4+8], eax
SAMPLE mem, mov [rip+0x100], rax
SAMPLE mem, mov byte ptr [rbx], 0
SAMPLE mem, mov word ptr [rbx], 1
SAMPLE mem, mov dword ptr [rbx+8], 0
SAMPLE mem, mov qword ptr [rbx], -1
SAMPLE mem, mov qword ptr [rbx+rcx*8+16], 0
SAMPLE mem, movnti [rbx], rax
SAMPLE mem, movd xmm0, [rax]
SAMPLE mem, movq xmm0, [rax]
SAMPLE mem, movd [rax], xmm0
SAMPLE mem, movq [rax], xmm0
SAMPLE mem, movss [rax], xmm0
SAMPLE mem, movsd xmm0, [rax]
SAMPLE mem, movsd xmm0, [rax+rcx*8]
SAMPLE mem, movdqa xmm0, [rax]
SAMPLE mem, movdqu [rax], xmm0
SAMPLE mem, movups [rax], xmm0
SAMPLE mem, movapd xmm0, [rax+rcx*8]
SAMPLE mem, movhps xmm0, [rax]
SAMPLE mem, movlps [rax], xmm0
SAMPLE mem, movlpd xmm0, [rax]
SAMPLE mem, movhpd [rax], xmm0
SAMPLE mem, movntdq [rax], xmm0
SAMPLE cond, cmovz rax, rbx
SAMPLE cond, cmovl eax, ebx
SAMPLE cond, cmova rax, rbx
SAMPLE cond, setz al
SAMPLE cond, setl al
SAMPLE cond, seta al
SAMPLE cond, setp al
SAMPLE cond, cmovnz rax, rbx
SAMPLE cond, cmovb eax, ebx
SAMPLE cond, cmovge rax, rbx
SAMPLE cond, cmovle eax, ebx
SAMPLE cond, cmovs rax, rbx
SAMPLE cond, cmovbe rax, rbx
SAMPLE cond, cmovp eax, ebx
SAMPLE cond, cmovz rax, [rbx]
SAMPLE cond, setnz al
SAMPLE cond, setb al
SAMPLE cond, setge cl
SAMPLE cond, setbe al
SAMPLE cond, sets al
SAMPLE cond, seto al
SAMPLE cond, setnp al
SAMPLE cond, setz byte ptr [rbx]
SAMPLE cond, lahf
SAMPLE cond, sahf
/* The way compilers use them: right after the compare that sets the flags
   (the row's cost is the pair's). */
PAIR cond, "cmp rax, rbx", "cmovl rax, rcx"
PAIR cond, "test eax, eax", "cmovz eax, ebx"
PAIR cond, "cmp eax, ebx", "setl al"
PAIR cond, "cmp rax, rbx", "seta al"
PAIR cond, "cmp rax, rbx", "sbb eax, eax"
PAIR cond, "test rax, rax", "setnz al"
PAIR cond, "cmp rax, rbx", "cmovb rax, rcx"
PAIR cond, "ucomisd xmm0, xmm1", "seta al"
PAIR cond, "ucomisd xmm0, xmm1", "setnp al"
PAIR cond, "add rax, rbx", "adc rdx, rcx"
PAIR cond, "sub rax, rbx", "sbb rdx, rcx"
PAIR cond, "cmp eax, ebx", "adc ecx, 0"
/* Compare and branch: the instruction's flags read by the jcc a compiler
   puts after it (the ZF-live figure is the pair's against the jcc alone). */
BRANCH branch, "cmp rax, rbx", l
BRANCH branch, "cmp rax, rbx", ge
BRANCH branch, "cmp rax, rbx", le
BRANCH branch, "cmp rax, rbx", g
BRANCH branch, "cmp rax, rbx", b
BRANCH branch, "cmp rax, rbx", ae
BRANCH branch, "cmp rax, rbx", a
BRANCH branch, "cmp rax, rbx", be
BRANCH branch, "cmp rax, rbx", ne
BRANCH branch, "cmp eax, 10", l
BRANCH branch, "cmp al, 0x20", e
BRANCH branch, "cmp qword ptr [rbx], 0", ne
BRANCH branch, "cmp rax, [rbx+8]", b
BRANCH branch, "test eax, eax", s
BRANCH branch, "test rax, rax", ne
BRANCH branch, "test al, 1", ne
BRANCH branch, "test byte ptr [rbx], 4", e
BRANCH branch, "dec ecx", ne
BRANCH branch, "sub rax, 1", ne
BRANCH branch, "add rax, rbx", o
BRANCH branch, "add rax, rbx", c
BRANCH branch, "bt rax, rbx", c
BRANCH branch, "ucomisd xmm0, xmm1", a
BRANCH branch, "ucomisd xmm0, xmm1", ae
BRANCH branch, "ucomisd xmm0, xmm1", b
BRANCH branch, "ucomisd xmm0, xmm1", be
BRANCH branch, "ucomisd xmm0, xmm1", p
BRANCH branch, "ucomisd xmm0, xmm1", ne
BRANCH branch, "ucomisd xmm0, [rax]", a
BRANCH branch, "comisd xmm0, xmm1", a
BRANCH branch, "comisd xmm0, xmm1", b
BRANCH branch, "ucomiss xmm0, xmm1", a
BRANCH branch, "comiss xmm0, xmm1", ae
BRANCH branch, "ptest xmm0, xmm1", nz
SAMPLE shift, shl rax, 3
SAMPLE shift, shr eax, 1
SAMPLE shift, sar rax, 63
SAMPLE shift, shl rax, cl
SAMPLE shift, shr eax, cl
SAMPLE shift, sar rax, cl
SAMPLE shift, rol rax, 13
SAMPLE shift, ror eax, cl
SAMPLE shift, rcl rax, 1
SAMPLE shift, rcr eax, 1
SAMPLE shift, shld rax, rbx, 7
SAMPLE shift, shrd rax, rbx, cl
SAMPLE muldiv, imul rax, rbx
SAMPLE muldiv, imul eax, ebx, 12
SAMPLE muldiv, imul ecx
SAMPLE muldiv, mul rbx
SAMPLE muldiv, imul rbx
SAMPLE muldiv, div rbx
SAMPLE muldiv, idiv ecx
SAMPLE muldiv, div cl
SAMPLE bits, bsf rax, rbx
SAMPLE bits, bsr eax, ebx
SAMPLE bits, bt rax, rbx
SAMPLE bits, bts eax, 5
SAMPLE bits, btr rax, rbx
SAMPLE bits, btc eax, ebx
SAMPLE bits, popcnt rax, rbx
SAMPLE bits, lzcnt eax, ebx
SAMPLE bits, tzcnt rax, rbx
SAMPLE bits, bswap rax
SAMPLE bits, bswap eax
SAMPLE string, movsb
SAMPLE string, movsq
SAMPLE string, stosq
SAMPLE string, rep movsb
SAMPLE string, rep movsq
SAMPLE string, rep stosb
SAMPLE string, rep stosq
SAMPLE string, lodsb
SAMPLE string, scasb
SAMPLE string, cmpsb
SAMPLE string, repne scasb
SAMPLE string, repe cmpsb
SAMPLE stack, push rax
SAMPLE stack, pop rbx
SAMPLE stack, push 1
SAMPLE stack, push qword ptr [rbx]
SAMPLE stack, pushfq
SAMPLE stack, popfq
SAMPLE stack, leave
SAMPLE sse_int, movdqa xmm0, xmm1
SAMPLE sse_int, movdqu xmm0, [rax]
SAMPLE sse_int, movdqa [rax], xmm0
SAMPLE sse_int, movq xmm0, rax
SAMPLE sse_int, movd eax, xmm0
SAMPLE sse_int, paddd xmm0, xmm1
SAMPLE sse_int, paddq xmm0, xmm1
SAMPLE sse_int, psubb xmm0, xmm1
SAMPLE sse_int, paddusb xmm0, xmm1
SAMPLE sse_int, pmullw xmm0, xmm1
SAMPLE sse_int, pmulhw xmm0, xmm1
SAMPLE sse_int, pmuludq xmm0, xmm1
SAMPLE sse_int, pmaddwd xmm0, xmm1
SAMPLE sse_int, pcmpeqb xmm0, xmm1
SAMPLE sse_int, pcmpgtd xmm0, xmm1
SAMPLE sse_int, pand xmm0, xmm1
SAMPLE sse_int, pandn xmm0, xmm1
SAMPLE sse_int, por xmm0, xmm1
SAMPLE sse_int, pxor xmm0, xmm0
SAMPLE sse_int, pxor xmm0, xmm1
SAMPLE sse_int, pmovmskb eax, xmm0
SAMPLE sse_int, pmaxub xmm0, xmm1
SAMPLE sse_int, pminsw xmm0, xmm1
SAMPLE sse_int, pavgb xmm0, xmm1
SAMPLE sse_int, psadbw xmm0, xmm1
SAMPLE sse_int, pslld xmm0, 3
SAMPLE sse_int, psrlq xmm0, 7
SAMPLE sse_int, psraw xmm0, 2
SAMPLE sse_int, pslld xmm0, xmm1
SAMPLE sse_int, psrad xmm0, xmm1
SAMPLE sse_int, pslldq xmm0, 4
SAMPLE sse_int, psrldq xmm0, 8
SAMPLE sse_int, paddd xmm0, [rax]
SAMPLE sse_int, pcmpeqb xmm0, [rax]
SAMPLE sse_int, pand xmm0, [rax]
SAMPLE sse_int, pxor xmm0, [rax]
SAMPLE sse_fp, movaps xmm0, xmm1
SAMPLE sse_fp, movups xmm0, [rax]
SAMPLE sse_fp, movss xmm0, [rax]
SAMPLE sse_fp, movsd xmm0, xmm1
SAMPLE sse_fp, movsd [rax], xmm0
SAMPLE sse_fp, movaps xmm0, [rax]
SAMPLE sse_fp, movaps [rax], xmm0
SAMPLE sse_fp, addps xmm0, xmm1
SAMPLE sse_fp, addpd xmm0, xmm1
SAMPLE sse_fp, addss xmm0, xmm1
SAMPLE sse_fp, addsd xmm0, xmm1
SAMPLE sse_fp, subsd xmm0, xmm1
SAMPLE sse_fp, mulps xmm0, xmm1
SAMPLE sse_fp, mulsd xmm0, xmm1
SAMPLE sse_fp, divsd xmm0, xmm1
SAMPLE sse_fp, divps xmm0, xmm1
SAMPLE sse_fp, sqrtsd xmm0, xmm1
SAMPLE sse_fp, sqrtps xmm0, xmm1
SAMPLE sse_fp, maxsd xmm0, xmm1
SAMPLE sse_fp, minps xmm0, xmm1
SAMPLE sse_fp, andps xmm0, xmm1
SAMPLE sse_fp, andnpd xmm0, xmm1
SAMPLE sse_fp, xorps xmm0, xmm0
SAMPLE sse_fp, xorpd xmm0, xmm1
SAMPLE sse_fp, cmpltsd xmm0, xmm1
SAMPLE sse_fp, cmpeqps xmm0, xmm1
SAMPLE sse_fp, ucomisd xmm0, xmm1
SAMPLE sse_fp, comiss xmm0, xmm1
SAMPLE sse_fp, rcpps xmm0, xmm1
SAMPLE sse_fp, rsqrtss xmm0, xmm1
SAMPLE sse_fp, movmskpd eax, xmm0
SAMPLE sse_fp, subss xmm0, xmm1
SAMPLE sse_fp, subps xmm0, xmm1
SAMPLE sse_fp, subpd xmm0, xmm1
SAMPLE sse_fp, mulss xmm0, xmm1
SAMPLE sse_fp, mulpd xmm0, xmm1
SAMPLE sse_fp, divss xmm0, xmm1
SAMPLE sse_fp, divpd xmm0, xmm1
SAMPLE sse_fp, sqrtss xmm0, xmm1
SAMPLE sse_fp, sqrtpd xmm0, xmm1
SAMPLE sse_fp, minss xmm0, xmm1
SAMPLE sse_fp, minsd xmm0, xmm1
SAMPLE sse_fp, minpd xmm0, xmm1
SAMPLE sse_fp, maxss xmm0, xmm1
SAMPLE sse_fp, maxps xmm0, xmm1
SAMPLE sse_fp, maxpd xmm0, xmm1
/* Memory forms: the packed ones check alignment as movaps does. */
SAMPLE sse_fp, addss xmm0, [rax]
SAMPLE sse_fp, addsd xmm0, [rax]
SAMPLE sse_fp, addps xmm0, [rax]
SAMPLE sse_fp, addpd xmm0, [rax]
SAMPLE sse_fp, subss xmm0, [rax]
SAMPLE sse_fp, subsd xmm0, [rax]
SAMPLE sse_fp, subps xmm0, [rax]
SAMPLE sse_fp, subpd xmm0, [rax]
SAMPLE sse_fp, mulss xmm0, [rax]
SAMPLE sse_fp, mulsd xmm0, [rax]
SAMPLE sse_fp, mulps xmm0, [rax]
SAMPLE sse_fp, mulpd xmm0, [rax]
SAMPLE sse_fp, divss xmm0, [rax]
SAMPLE sse_fp, divsd xmm0, [rax]
SAMPLE sse_fp, divps xmm0, [rax]
SAMPLE sse_fp, divpd xmm0, [rax]
SAMPLE sse_fp, sqrtss xmm0, [rax]
SAMPLE sse_fp, sqrtsd xmm0, [rax]
SAMPLE sse_fp, sqrtps xmm0, [rax]
SAMPLE sse_fp, sqrtpd xmm0, [rax]
SAMPLE sse_fp, minss xmm0, [rax]
SAMPLE sse_fp, minsd xmm0, [rax]
SAMPLE sse_fp, minps xmm0, [rax]
SAMPLE sse_fp, minpd xmm0, [rax]
SAMPLE sse_fp, maxss xmm0, [rax]
SAMPLE sse_fp, maxsd xmm0, [rax]
SAMPLE sse_fp, maxps xmm0, [rax]
SAMPLE sse_fp, maxpd xmm0, [rax]
SAMPLE sse_fp, movss xmm0, xmm1
SAMPLE sse_fp, movapd xmm0, xmm1
SAMPLE sse_fp, movupd [rax], xmm0
SAMPLE sse_fp, orps xmm0, xmm1
SAMPLE sse_fp, andpd xmm0, [rax]
SAMPLE sse_fp, xorps xmm0, [rax]
SAMPLE sse_fp, cmpltps xmm0, xmm1
SAMPLE sse_fp, cmpleps xmm0, xmm1
SAMPLE sse_fp, cmpneqps xmm0, xmm1
SAMPLE sse_fp, cmpunordps xmm0, xmm1
SAMPLE sse_fp, cmpltps xmm0, [rax]
SAMPLE sse_fp, cmpeqpd xmm0, xmm1
SAMPLE sse_fp, cmpltpd xmm0, xmm1
SAMPLE sse_fp, cmpless xmm0, xmm1
SAMPLE sse_fp, cmpeqsd xmm0, xmm1
SAMPLE sse_fp, cmpneqsd xmm0, xmm1
SAMPLE sse_fp, ucomiss xmm0, xmm1
SAMPLE sse_fp, comisd xmm0, xmm1
SAMPLE sse_fp, ucomisd xmm0, [rax]
SAMPLE sse_fp, movmskps eax, xmm0
/* Two SSE operations in one XMM commit region (x86/xmm_regions.cpp): the
   second takes the first's NaN check, and the first's register write
   disappears when the second overwrites it. */
PAIR sse_fp, "mulsd xmm0, xmm1", "addsd xmm0, xmm2"
PAIR sse_fp, "mulsd xmm0, xmm1", "addsd xmm0, [rax]"
PAIR sse_fp, "mulps xmm0, xmm1", "addps xmm2, xmm0"
PAIR sse_fp, "subsd xmm3, xmm1", "mulsd xmm3, xmm3"
SAMPLE sse_shuffle, pshufd xmm0, xmm1, 0x1b
SAMPLE sse_shuffle, pshufd xmm0, xmm1, 0
SAMPLE sse_shuffle, pshuflw xmm0, xmm1, 0x1b
SAMPLE sse_shuffle, shufps xmm0, xmm1, 0x44
SAMPLE sse_shuffle, shufps xmm0, xmm1, 0x1b
SAMPLE sse_shuffle, shufpd xmm0, xmm1, 1
SAMPLE sse_shuffle, unpcklps xmm0, xmm1
SAMPLE sse_shuffle, unpckhpd xmm0, xmm1
SAMPLE sse_shuffle, punpcklbw xmm0, xmm1
SAMPLE sse_shuffle, punpckhdq xmm0, xmm1
SAMPLE sse_shuffle, punpcklqdq xmm0, xmm1
SAMPLE sse_shuffle, packsswb xmm0, xmm1
SAMPLE sse_shuffle, packuswb xmm0, xmm1
SAMPLE sse_shuffle, packssdw xmm0, xmm1
SAMPLE sse_shuffle, movhlps xmm0, xmm1
SAMPLE sse_shuffle, movlhps xmm0, xmm1
SAMPLE sse_shuffle, pinsrw xmm0, eax, 3
SAMPLE sse_shuffle, pextrw eax, xmm0, 5
SAMPLE sse_shuffle, pshufd xmm0, xmm1, 0x4e
SAMPLE sse_shuffle, pshufd xmm0, xmm1, 0xb1
SAMPLE sse_shuffle, pshufd xmm0, [rax], 0x4e
SAMPLE sse_shuffle, pshufhw xmm0, xmm1, 0x1b
SAMPLE sse_shuffle, shufps xmm0, xmm0, 0
SAMPLE sse_shuffle, shufps xmm0, [rax], 0x88
SAMPLE sse_shuffle, shufpd xmm0, xmm1, 0
SAMPLE sse_shuffle, unpckhps xmm0, xmm1
SAMPLE sse_shuffle, unpcklpd xmm0, xmm1
SAMPLE sse_shuffle, unpcklps xmm0, [rax]
SAMPLE sse_shuffle, punpckhbw xmm0, xmm1
SAMPLE sse_shuffle, punpcklwd xmm0, xmm1
SAMPLE sse_shuffle, punpckhwd xmm0, xmm1
SAMPLE sse_shuffle, punpckldq xmm0, xmm1
SAMPLE sse_shuffle, punpckhqdq xmm0, xmm1
SAMPLE sse_shuffle, punpcklbw xmm0, [rax]
SAMPLE sse_convert, cvtsi2sd xmm0, rax
SAMPLE sse_convert, cvtsi2sd xmm0, eax
SAMPLE sse_convert, cvtsi2ss xmm0, eax
SAMPLE sse_convert, cvttsd2si rax, xmm0
SAMPLE sse_convert, cvttsd2si eax, xmm0
SAMPLE sse_convert, cvtsd2si rax, xmm0
SAMPLE sse_convert, cvttss2si eax, xmm0
SAMPLE sse_convert, cvtss2sd xmm0, xmm1
SAMPLE sse_convert, cvtsd2ss xmm0, xmm1
SAMPLE sse_convert, cvtdq2ps xmm0, xmm1
SAMPLE sse_convert, cvttps2dq xmm0, xmm1
SAMPLE sse_convert, cvtps2dq xmm0, xmm1
SAMPLE sse_convert, cvtdq2pd xmm0, xmm1
SAMPLE sse_convert, cvtpd2ps xmm0, xmm1
SAMPLE sse_convert, cvtps2pd xmm0, xmm1
SAMPLE sse_convert, cvttpd2dq xmm0, xmm1
SAMPLE sse_convert, cvtsi2ss xmm0, rax
SAMPLE sse_convert, cvtsi2sd xmm0, qword ptr [rax]
SAMPLE sse_convert, cvtsi2sd xmm0, dword ptr [rax]
SAMPLE sse_convert, cvttss2si rax, xmm0
SAMPLE sse_convert, cvtss2si eax, xmm0
SAMPLE sse_convert, cvtsd2si eax, xmm0
SAMPLE sse_convert, cvttsd2si rax, [rax]
SAMPLE sse_convert, cvtpd2dq xmm0, xmm1
SAMPLE sse_convert, cvtss2sd xmm0, [rax]
SAMPLE sse_convert, cvtsd2ss xmm0, [rax]
SAMPLE sse_convert, cvtdq2ps xmm0, [rax]
SAMPLE sse_convert, cvtps2pd xmm0, [rax]
SAMPLE sse3, addsubps xmm0, xmm1
SAMPLE sse3, haddps xmm0, xmm1
SAMPLE sse3, haddpd xmm0, xmm1
SAMPLE sse3, movddup xmm0, xmm1
SAMPLE sse3, movshdup xmm0, xmm1
SAMPLE sse3, lddqu xmm0, [rax]
SAMPLE ssse3, pshufb xmm0, xmm1
SAMPLE ssse3, pshufb xmm0, [rax]
SAMPLE ssse3, palignr xmm0, xmm1, 4
SAMPLE ssse3, pabsd xmm0, xmm1
SAMPLE ssse3, phaddd xmm0, xmm1
SAMPLE ssse3, pmaddubsw xmm0, xmm1
SAMPLE ssse3, pmulhrsw xmm0, xmm1
SAMPLE ssse3, psignb xmm0, xmm1
SAMPLE sse41, pmulld xmm0, xmm1
SAMPLE sse41, pminsd xmm0, xmm1
SAMPLE sse41, pmaxud xmm0, xmm1
SAMPLE sse41, pmovzxbw xmm0, xmm1
SAMPLE sse41, pmovsxdq xmm0, xmm1
SAMPLE sse41, pblendw xmm0, xmm1, 0x55
SAMPLE sse41, blendvps xmm0, xmm1, xmm0
SAMPLE sse41, pblendvb xmm1, xmm2, xmm0
SAMPLE sse41, pinsrd xmm0, eax, 2
SAMPLE sse41, pextrd eax, xmm0, 1
SAMPLE sse41, pextrb eax, xmm0, 9
SAMPLE sse41, insertps xmm0, xmm1, 0x10
SAMPLE sse41, ptest xmm0, xmm1
SAMPLE sse41, pcmpeqq xmm0, xmm1
SAMPLE sse41, packusdw xmm0, xmm1
SAMPLE sse41, roundsd xmm0, xmm1, 9
SAMPLE sse41, roundps xmm0, xmm1, 0
SAMPLE sse41, dpps xmm0, xmm1, 0xff
SAMPLE sse41, phminposuw xmm0, xmm1
SAMPLE sse42, pcmpgtq xmm0, xmm1
SAMPLE pcmpstr, pcmpistri xmm0, xmm1, 0x0c
SAMPLE pcmpstr, pcmpistrm xmm0, xmm1, 0x40
SAMPLE pcmpstr, pcmpestri xmm0, xmm1, 0x18
SAMPLE crc32, crc32 eax, bl
SAMPLE crc32, crc32 rax, rbx
SAMPLE aes, aesenc xmm0, xmm1
SAMPLE aes, aesenclast xmm0, xmm1
SAMPLE aes, aesdec xmm0, xmm1
SAMPLE aes, aesimc xmm0, xmm1
SAMPLE aes, aeskeygenassist xmm0, xmm1, 1
SAMPLE pclmul, pclmulqdq xmm0, xmm1, 0x00
SAMPLE pclmul, pclmulqdq xmm0, xmm1, 0x11
SAMPLE sha, sha1rnds4 xmm0, xmm1, 0
SAMPLE sha, sha1nexte xmm0, xmm1
SAMPLE sha, sha1msg1 xmm0, xmm1
SAMPLE sha, sha256rnds2 xmm1, xmm2, xmm0
SAMPLE sha, sha256msg1 xmm0, xmm1
SAMPLE sha, sha256msg2 xmm0, xmm1
SAMPLE bmi1, andn rax, rbx, rcx
SAMPLE bmi1, blsr rax, rbx
SAMPLE bmi1, blsi eax, ebx
SAMPLE bmi1, blsmsk rax, rbx
SAMPLE bmi1, bextr rax, rbx, rcx
SAMPLE bmi2, bzhi rax, rbx, rcx
SAMPLE bmi2, shlx rax, rbx, rcx
SAMPLE bmi2, sarx eax, ebx, ecx
SAMPLE bmi2, rorx rax, rbx, 13
SAMPLE bmi2, mulx rax, rcx, rbx
SAMPLE bmi2, pdep rax, rbx, rcx
SAMPLE bmi2, pext rax, rbx, rcx
SAMPLE adx, adcx rax, rbx
SAMPLE adx, adox rax, rbx
SAMPLE movbe, movbe rax, [rbx]
SAMPLE movbe, movbe [rbx], eax
SAMPLE mmx, movq mm0, mm1
SAMPLE mmx, movq mm0, [rax]
SAMPLE mmx, paddw mm0, mm1
SAMPLE mmx, pmullw mm0, mm1
SAMPLE mmx, pxor mm0, mm1
SAMPLE mmx, psllq mm0, 3
SAMPLE mmx, psrlw mm0, mm1
SAMPLE mmx, punpcklbw mm0, mm1
SAMPLE mmx, pshufw mm0, mm1, 0x1b
SAMPLE mmx, emms
SAMPLE x87, fld qword ptr [rax]
SAMPLE x87, fstp qword ptr [rax]
SAMPLE x87, fld st(1)
SAMPLE x87, faddp st(1), st
SAMPLE x87, fmul st, st(1)
SAMPLE x87, fdivp st(1), st
SAMPLE x87, fxch st(1)
SAMPLE x87, fild dword ptr [rax]
SAMPLE x87, fistp qword ptr [rax]
SAMPLE x87, fucomip st, st(1)
BRANCH x87, "fucomip st, st(1)", a
SAMPLE x87, fnstcw [rax]
SAMPLE x87, fldcw [rax]
SAMPLE x87, fld dword ptr [rax]
SAMPLE x87, fld tbyte ptr [rax]
SAMPLE x87, fstp dword ptr [rax]
SAMPLE x87, fstp tbyte ptr [rax]
SAMPLE x87, fst qword ptr [rax]
SAMPLE x87, fstp st(1)
SAMPLE x87, fldz
SAMPLE x87, fld1
SAMPLE x87, fadd qword ptr [rax]
SAMPLE x87, fadd st, st(1)
SAMPLE x87, fsub qword ptr [rax]
SAMPLE x87, fmul qword ptr [rax]
SAMPLE x87, fmulp st(1), st
SAMPLE x87, fdiv qword ptr [rax]
SAMPLE x87, fiadd dword ptr [rax]
SAMPLE x87, fchs
SAMPLE x87, fabs
SAMPLE x87, fxch st(2)
SAMPLE x87, fild qword ptr [rax]
SAMPLE x87, fild word ptr [rax]
SAMPLE x87, fistp dword ptr [rax]
SAMPLE x87, fist dword ptr [rax]
SAMPLE x87, fisttp qword ptr [rax]
SAMPLE x87, fcomip st, st(1)
SAMPLE x87, fucomi st, st(1)
SAMPLE x87, fnstsw ax
SAMPLE x87_transcendental, fsin
SAMPLE x87_transcendental, fcos
SAMPLE x87_transcendental, fpatan
SAMPLE x87_transcendental, fyl2x
SAMPLE x87_transcendental, f2xm1
SAMPLE x87_transcendental, fsqrt
SAMPLE cmpxchg, cmpxchg [rbx], rcx
SAMPLE cmpxchg, lock cmpxchg [rbx], ecx
SAMPLE cmpxchg, lock xadd [rbx], rax
SAMPLE cmpxchg, xchg [rbx], rax
SAMPLE cmpxchg, lock add dword ptr [rbx], 1
SAMPLE cmpxchg, lock cmpxchg16b [rbx]
SAMPLE cmpxchg, cmpxchg8b [rbx]

  .globl famcost_samples_end
famcost_samples_end:
  .section .note.GNU-stack, "", @progbits
