#!/usr/bin/python3
"""fwdgen: the description of a forwarded library, from its real headers.

    tools/fwdgen/fwdgen.py NOTES NATIVE_LIBRARY > src/forward/libs/NAME.fwd
    tools/fwdgen/fwdgen.py --check NOTES NATIVE_LIBRARY FWD

Reads the annotation file NOTES (which headers, what they cannot say),
parses the headers with libclang (Debian's python3-clang-14) for x86-64
and for AArch64, takes the exported functions and their symbol versions
from the native AArch64 library, and writes one line per export: its
version and how each argument travels (the classes of
src/forward/signature.h; records by value as recN or memN).  Fails,
naming the function, when an export has no description, when a header
type has no class, or when a record that a signature reaches differs in
size, alignment or a field offset between the two targets (the generated
code does not convert records).
--check: exits 1 when FWD is not what would be generated (CI).

Written with /usr/bin/python3: Debian's clang bindings live there.
"""
import os
import subprocess
import sys

import clang.cindex as ci

ci.Config.set_library_file('/usr/lib/llvm-14/lib/libclang-14.so.1')
TARGETS = ('x86_64-linux-gnu', 'aarch64-linux-gnu')
INTEGER = {
    ci.TypeKind.BOOL: 'u8', ci.TypeKind.CHAR_S: 'i8', ci.TypeKind.SCHAR: 'i8', ci.TypeKind.UCHAR: 'u8',
    ci.TypeKind.CHAR_U: 'u8', ci.TypeKind.SHORT: 'i16', ci.TypeKind.USHORT: 'u16', ci.TypeKind.INT: 'i32',
    ci.TypeKind.UINT: 'u32', ci.TypeKind.LONG: 'i64', ci.TypeKind.ULONG: 'u64', ci.TypeKind.LONGLONG: 'i64',
    ci.TypeKind.ULONGLONG: 'u64',
}


def die(message):
    sys.exit('fwdgen: ' + message)


def read_notes(path):
    """The annotation file: `key value...` lines; fn/extra lines may repeat."""
    notes = {'header': [], 'define': [], 'extra': {}, 'skip': {}, 'callback': {}, 'handout': {}, 'table': {},
             'tablelayout': [], 'hostmap': {}, 'variant': {}}
    for raw in open(path):
        line = raw.split('#', 1)[0].strip()
        if not line:
            continue
        key, _, rest = line.partition(' ')
        rest = rest.strip()
        if key in ('header', 'define'):
            notes[key].append(rest)
        elif key == 'extra':  # extra NAME RET : ARGS  (an export no header declares)
            name, _, sig = rest.partition(' ')
            notes['extra'][name] = sig.strip()
        elif key == 'skip':  # skip NAME reason
            name, _, why = rest.partition(' ')
            notes['skip'][name] = why.strip()
        elif key == 'callback':  # callback NAME ARG_INDEX any
            name, index, thread = rest.split()
            notes['callback'].setdefault(name, {})[int(index)] = thread
        elif key == 'ext':  # ext NAME RET : ARGS  (a handed-out function no header describes)
            name, _, sig = rest.partition(' ')
            notes.setdefault('ext', {})[name] = sig.strip()
        elif key == 'table':  # table NAME TABLE_ARG EXTENSION_ARG [LENGTH_ARG]: fills a table of functions
            name, *indexes = rest.split()
            notes['table'][name] = [int(i) for i in indexes] + ([-1] if len(indexes) == 2 else [])
        elif key == 'hostmap':  # hostmap NAME RESULT...: results that mean host memory could not be mapped
            name, _, results = rest.partition(' ')
            notes['hostmap'][name] = results.strip()
        elif key == 'tablelayout':  # tablelayout EXTENSION STRUCT [OLD_STRUCT]: what such a table holds
            ext, *structs = rest.split()
            notes['tablelayout'].append((int(ext, 0), structs))
        elif key == 'variant':  # variant RECORD MEMBER TAG ENUMERATOR: a union member, there when the tag says
            record, member, tag, enumerator = rest.split()
            notes['variant'][record] = (member, tag, enumerator)
        elif key == 'handout':  # handout NAME ARG_INDEX [OUT_INDEX]: hands out the function that argument names
            name, *indexes = rest.split()  # by its result, or through the pointer OUT_INDEX on success (0)
            notes['handout'][name] = ' '.join(str(int(i)) for i in indexes)
        else:
            notes[key] = rest
    for key in ('library', 'soname', 'package'):
        if key not in notes:
            die(f'{path}: no "{key}" line')
    notes['file'] = os.path.basename(path)
    return notes


def exports(library):
    """(name, version) of every exported function, (name, version, size)
    of every exported data object, and the version nodes with their
    parents, in the order the library defines them."""
    out = subprocess.run(['readelf', '--dyn-syms', '-W', library], capture_output=True, text=True, check=True)
    funcs, objects = [], []
    for line in out.stdout.splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] in ('FUNC', 'OBJECT') and f[6] not in ('UND', 'ABS'):
            name, _, version = f[7].partition('@@')
            if f[3] == 'FUNC':
                funcs.append((name, version or '-'))
            else:
                objects.append((name, version or '-', int(f[2], 0)))
    verdef = subprocess.run(['readelf', '-V', '-W', library], capture_output=True, text=True, check=True).stdout
    nodes, current = [], None
    section = verdef.split('Version definition', 1)[-1].split('Version needs', 1)[0]
    for line in section.splitlines():
        if 'Name:' in line and 'Flags: BASE' not in line:
            current = [line.split('Name:')[1].strip(), '']
            nodes.append(current)
        elif 'Parent 1:' in line and current:
            current[1] = line.split('Parent 1:')[1].strip()
    return sorted(funcs), sorted(objects), nodes


def installation_includes(library):
    """The include directory of the installation the native library
    belongs to: PREFIX/include for PREFIX/lib/TRIPLET/lib.so (a Debian
    tree) or PREFIX/lib/lib.so (ROCm's own layout)."""
    lib_dir = os.path.dirname(os.path.abspath(library))
    prefix = os.path.dirname(lib_dir)
    if os.path.basename(prefix) == 'lib':
        prefix = os.path.dirname(prefix)
    include = os.path.join(prefix, 'include')
    if not os.path.isdir(include):
        die(f'{library}: the notes take the headers beside the library, and {include} does not exist')
    return include


def parse(notes, target, library):
    """The headers as one translation unit for `target`.  `headers
    beside-library` takes them from the native library's own installation
    before the machine's: a release whose headers the machine does not
    have (ROCm 6 beside Debian's 5.2)."""
    source = ''.join(f'#include <{h}>\n' for h in notes['header'])
    cxx = notes.get('language') == 'c++'
    args = ['-target', target] + (['-x', 'c++', '-std=c++17'] if cxx else ['-std=c11'])
    if notes.get('headers') == 'beside-library':
        args += ['-isystem', installation_includes(library)]
    args += ['-D' + d for d in notes['define']]
    name = 'fwdgen.cpp' if cxx else 'fwdgen.c'
    tu = ci.Index.create().parse(name, args=args, unsaved_files=[(name, source)])
    errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    if errors:
        die(f'{target}: ' + '; '.join(str(d) for d in errors[:3]))
    return tu


def declarations(tu):
    """Functions by their symbol: a C++ function's is its mangled name (the
    same for both targets: the Itanium ABI's), inside namespaces and
    extern "C" blocks too; also by their plain name, since a library may
    export as C what its header declares as C++ (HIP's profiler hooks)."""
    found, plain = {}, {}

    def walk(cursor):
        for c in cursor.get_children():
            if c.kind == ci.CursorKind.FUNCTION_DECL:
                found.setdefault(c.mangled_name or c.spelling, c)
                plain.setdefault(c.spelling, c)
            elif c.kind in (ci.CursorKind.NAMESPACE, ci.CursorKind.LINKAGE_SPEC, ci.CursorKind.UNEXPOSED_DECL):
                walk(c)
    walk(tu.cursor)
    return {**plain, **found}


def proto_signature(proto, where):
    """'RESULT : ARG...' of a function prototype (raises Unclassified)."""
    return (arg_class(proto.get_result(), where) + ' : ' +
            ' '.join(arg_class(a, where) for a in proto.argument_types())).rstrip()


def function_table(tu, struct, where):
    """(field, signature) of a struct of function pointers (an HSA
    extension table), in order."""
    for c in tu.cursor.get_children():
        if c.kind == ci.CursorKind.TYPEDEF_DECL and c.spelling == struct:
            t = c.underlying_typedef_type.get_canonical()
            break
    else:
        die(f'{where}: no typedef {struct} in the headers')
    entries = []
    for f in t.get_fields():
        if not is_function_pointer(f.type):
            die(f'{where}: {struct}.{f.spelling} is not a function pointer')
        proto = f.type.get_canonical().get_pointee().get_canonical()
        try:
            entries.append((f.spelling, proto_signature(proto, f.spelling)))
        except Unclassified as e:
            die(str(e))
    return entries


def table_lines(notes, units):
    """The table-filling functions and, per extension, the functions its
    table holds (tableentry EXT OLD NAME SIG: OLD 1 for those of the old
    call's 1.00 table, a prefix of the newest)."""
    lines = [f'table {name} {" ".join(map(str, idx))}' for name, idx in sorted(notes['table'].items())]
    for ext, structs in notes['tablelayout']:
        tables = [[function_table(units[t], st, f'tablelayout {ext:#x}') for t in TARGETS] for st in structs]
        for per_target in tables:
            if per_target[0] != per_target[1]:
                die(f'tablelayout {ext:#x}: the functions travel differently on the two targets')
        newest, old = tables[0][0], tables[-1][0]
        if newest[:len(old)] != old:
            die(f'tablelayout {ext:#x}: {structs[-1]} is not the start of {structs[0]}')
        lines += [f'tableentry {ext} {int(i < len(old))} {name} {sig}' for i, (name, sig) in enumerate(newest)]
    return lines


def handed_out_types(tu):
    """NAME -> function prototype of the headers' NAME_fn typedefs: the
    functions a library hands out by name (extension functions)."""
    out = {}
    for c in tu.cursor.get_children():
        if c.kind != ci.CursorKind.TYPEDEF_DECL or not c.spelling.endswith('_fn'):
            continue
        t = c.underlying_typedef_type.get_canonical()
        if t.kind == ci.TypeKind.POINTER and t.get_pointee().get_canonical().kind == ci.TypeKind.FUNCTIONPROTO:
            out[c.spelling[:-3]] = t.get_pointee().get_canonical()
    return out


def layout(t):
    """Size, alignment and field offsets of a record, for the comparison."""
    t = t.get_canonical()
    fields = [(f.spelling, t.get_offset(f.spelling)) for f in t.get_fields()]
    return (t.get_size(), t.get_align(), tuple(fields))


def is_function_pointer(t):
    t = t.get_canonical()
    return t.kind == ci.TypeKind.POINTER and t.get_pointee().get_canonical().kind in (
        ci.TypeKind.FUNCTIONPROTO, ci.TypeKind.FUNCTIONNOPROTO)


def records_reached(t, seen):
    """Records a type reaches through pointers, arrays and fields."""
    t = t.get_canonical()
    if t.kind == ci.TypeKind.POINTER:
        records_reached(t.get_pointee(), seen)
    elif t.kind in (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY):
        records_reached(t.element_type, seen)
    elif t.kind == ci.TypeKind.RECORD and t.spelling not in seen and t.get_size() > 0:
        seen[t.spelling] = t
        for f in t.get_fields():
            records_reached(f.type, seen)


def function_fields(t, seen=None):
    """The function-pointer fields of records a type reaches: a guest
    function there would reach native code unconverted."""
    seen = set() if seen is None else seen
    t = t.get_canonical()
    if t.kind == ci.TypeKind.POINTER and not is_function_pointer(t):
        return function_fields(t.get_pointee(), seen)
    if t.kind in (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY):
        return function_fields(t.element_type, seen)
    if t.kind != ci.TypeKind.RECORD or t.spelling in seen:
        return []
    seen.add(t.spelling)
    found = []
    for f in t.get_fields():
        found += [f'{t.get_declaration().spelling}.{f.spelling}'] if is_function_pointer(f.type) \
            else function_fields(f.type, seen)
    return found


# The notes' variants (RECORD -> MEMBER, TAG, ENUMERATOR) and the headers'
# enumerators, for the parse under way (describe sets them).
VARIANTS, ENUMERATORS = {}, {}


def own_functions(record, where, base=0, when='', deeper=lambda field: None):
    """The fields of `record` that are functions, as OFFSET:fn<...>[when],
    and what `deeper` finds in a field holding functions further down (a
    variant's union); None when it finds nothing there."""
    out = []
    for f in record.get_fields():
        if is_function_pointer(f.type):
            out.append(f'{base + record.get_offset(f.spelling) // 8}:{arg_class(f.type, where)}{when}')
        elif function_fields(f.type):
            inner = deeper(f)
            if inner is None:
                return None
            out += inner
    return out


def variant_functions(rec, union_field, where):
    """The functions of the union member the notes name for `rec`, each
    with its tag's condition; None when the field is no union with that
    member, or other members hold functions too."""
    if union_field.type.get_canonical().kind != ci.TypeKind.RECORD:
        return None
    member, tag, enumerator = VARIANTS.get(rec.get_declaration().spelling, (None, None, None))
    members = {m.spelling: m for m in union_field.type.get_canonical().get_fields()}
    if member not in members or enumerator not in ENUMERATORS:
        return None
    if any(function_fields(m.type) for name, m in members.items() if name != member):
        return None
    when = f'?{rec.get_offset(tag) // 8}={ENUMERATORS[enumerator]}'
    return own_functions(members[member].type.get_canonical(), where, rec.get_offset(member) // 8, when)


def record_functions_class(t, where):
    """A pointer to a record holding functions in fields of its own
    (hipHostNodeParams.fn), or in a union member the notes' `variant`
    names (hipGraphNodeParams.host, when .type says so):
    inN{OFFSET:fn<...>[?TAG_OFFSET=VALUE]|...}, ioN{...} when the record is
    not const (the library may write it); None for anything else
    (functions deeper down are refused by the caller)."""
    pointee = t.get_pointee()
    rec = pointee.get_canonical()
    if rec.kind != ci.TypeKind.RECORD:
        return None
    fields = own_functions(rec, where, deeper=lambda f: variant_functions(rec, f, where))
    if not fields:
        return None
    return f'{"in" if pointee.is_const_qualified() else "io"}{rec.get_size()}{{{"|".join(fields)}}}'


class Unclassified(Exception):
    """A type with no class of src/forward/signature.h (yet)."""


def only_integers(t):
    """Whether every scalar a record holds (through fields, arrays, unions)
    is an integer or a pointer: its words then travel in integer registers
    on both ABIs."""
    t = t.get_canonical()
    if t.kind == ci.TypeKind.RECORD:
        return all(only_integers(f.type) for f in t.get_fields())
    if t.kind == ci.TypeKind.CONSTANTARRAY:
        return only_integers(t.element_type)
    if t.kind == ci.TypeKind.ENUM:
        return True
    return t.kind in INTEGER or t.kind == ci.TypeKind.POINTER


def record_class(t, where):
    """recN: at most 16 bytes of integers, in one or two registers; memN:
    more than 16 bytes (SysV copies it onto the stack, AAPCS64 passes a
    copy's address; as a result, a hidden pointer on both)."""
    size, align = t.get_size(), t.get_align()
    if size <= 0 or align > 8:
        raise Unclassified(f'{where}: record {t.spelling} (size {size}, alignment {align}) by value')
    if size > 16:
        return f'mem{size}'
    if not only_integers(t):
        raise Unclassified(f'{where}: record {t.spelling} with floating-point fields by value')
    return f'rec{size}'


def arg_class(t, where):
    t = t.get_canonical()
    if t.kind == ci.TypeKind.RECORD:
        return record_class(t, where)
    if t.kind in (ci.TypeKind.POINTER, ci.TypeKind.LVALUEREFERENCE):
        pointee = t.get_pointee().get_canonical()
        if pointee.kind == ci.TypeKind.FUNCTIONPROTO:  # a callback: its own classes, as fn<RESULT,ARG...>
            inner = [arg_class(pointee.get_result(), where)] + [arg_class(a, where) for a in pointee.argument_types()]
            return 'fn<' + ','.join(inner) + '>'
        if pointee.kind == ci.TypeKind.FUNCTIONNOPROTO:
            raise Unclassified(f'{where}: a function pointer without a prototype')
        return record_functions_class(t, where) or 'ptr'
    if t.kind in (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY, ci.TypeKind.VARIABLEARRAY):
        return 'ptr'  # a parameter of array type is a pointer
    if t.kind == ci.TypeKind.ENUM:
        return arg_class(t.get_declaration().enum_type, where)
    if t.kind in INTEGER:
        return INTEGER[t.kind]
    if t.kind == ci.TypeKind.FLOAT:
        return 'f32'
    if t.kind == ci.TypeKind.DOUBLE:
        return 'f64'
    if t.kind == ci.TypeKind.VOID:
        return 'void'
    raise Unclassified(f'{where}: type {t.spelling} has no class yet')


def describe(notes, library):
    funcs, objects, nodes = exports(library)
    units = {target: parse(notes, target, library) for target in TARGETS}
    decls = {target: declarations(units[target]) for target in TARGETS}
    VARIANTS.clear()
    VARIANTS.update(notes['variant'])
    ENUMERATORS.clear()
    if VARIANTS:
        ENUMERATORS.update({c.spelling: c.enum_value for c in units[TARGETS[0]].cursor.walk_preorder()
                            if c.kind == ci.CursorKind.ENUM_CONSTANT_DECL})
    lines = [
        f'# Generated by tools/fwdgen/fwdgen.py from the headers {notes["file"]} names',
        '# and the exports of the native library; do not edit.',
        f'library {notes["library"]}',
        f'soname {notes["soname"]}',
        f'package {notes["package"]}',
    ]
    # Where else the native library may be (layout rocm: a ROCm
    # installation's lib/), and the prefixes of the environment variables
    # the native library reads (the guest's values reach it).
    lines += [f'{key} {notes[key]}' for key in ('layout', 'environment') if key in notes]
    lines += [f'version {name} {parent}'.rstrip() for name, parent in nodes]
    # An exported data object (a debugger's interface, _amdgpu_r_debug):
    # the guest side has its own, zero-filled, of the same size.
    lines += [f'data {name} {version} {size}' for name, version, size in objects]
    records = {}
    for name, version in funcs:
        if name in notes['skip']:
            lines.append(f'skip {name} {version} {notes["skip"][name]}')
            continue
        if name in notes['extra']:
            sig = notes['extra'][name]
        else:
            if name not in decls[TARGETS[0]]:
                die(f'export {name} has no declaration in the headers and no "extra" line in the notes')
            sigs = []
            for target in TARGETS:
                d = decls[target][name]
                try:  # by the declaration's parameters: a C `f()` has no prototype
                    params = [arg_class(a.type, f'{name} ({target})') for a in d.get_arguments()]
                    ret = arg_class(d.result_type, f'{name} ({target})')
                except Unclassified as e:
                    die(str(e))
                sigs.append(f'{ret} : ' + ' '.join(params))
                fields = [f for a, c in zip(d.get_arguments(), params) if not c.endswith('}')
                          for f in function_fields(a.type)]
                if fields:
                    die(f'{name}: a record it takes holds a function ({", ".join(fields)}): phybin does not '
                        'convert those; skip it in the notes')
                for a in list(d.get_arguments()):
                    records_reached(a.type, records.setdefault(target, {}))
                records_reached(d.result_type, records.setdefault(target, {}))
            if sigs[0] != sigs[1]:
                die(f'{name}: arguments travel differently: {sigs[0]} / {sigs[1]}')
            sig = sigs[0]
        for index, thread in sorted(notes['callback'].get(name, {}).items()):
            sig += f' @{index}={thread}'
        lines.append(f'fn {name} {version} {sig}'.rstrip())
    lines += table_lines(notes, units)
    lines += [f'hostmap {name} {results}' for name, results in sorted(notes['hostmap'].items())]
    if notes['handout']:
        protos = {target: handed_out_types(units[target]) for target in TARGETS}
        for name, index in sorted(notes['handout'].items()):
            lines.append(f'handout {name} {index}')
        for name, proto in sorted(protos[TARGETS[0]].items()):
            other = protos[TARGETS[1]].get(name)
            if other is None:
                continue
            try:
                sigs = [proto_signature(p, name) for p in (proto, other)]
            except Unclassified:
                continue  # a type without a class yet: not handed out
            if sigs[0] == sigs[1] and 'fn<' not in sigs[0] and name not in notes.get('ext', {}):
                lines.append(f'ext {name} {sigs[0]}')
        for name, sig in sorted(notes.get('ext', {}).items()):
            lines.append(f'ext {name} {sig}')
    for record, t in sorted(records.get(TARGETS[0], {}).items()):
        other = records[TARGETS[1]].get(record)
        if other is None or layout(t) != layout(other):
            die(f'record {record} differs between x86-64 and AArch64: the generated code does not convert it')
    lines.append(f'# {len(records.get(TARGETS[0], {}))} records reached, same layout on both targets')
    return '\n'.join(lines) + '\n'


def main(argv):
    check = argv[:1] == ['--check']
    if check:
        argv = argv[1:]
    if len(argv) != (3 if check else 2):
        die(__doc__.strip().splitlines()[2].strip())
    text = describe(read_notes(argv[0]), argv[1])
    if check:
        if open(argv[2]).read() != text:
            die(f'{argv[2]} is not current: run tools/fwdgen/fwdgen.py {argv[0]} {argv[1]} > {argv[2]}')
        return
    sys.stdout.write(text)


if __name__ == '__main__':
    main(sys.argv[1:])
