"""Writes the hostile ONNX models of hostile.sh into the folder given: a minimal protobuf writer (no onnx package needed)."""
import struct, sys
def varint(n):
    n &= (1<<64)-1
    out=b''
    while True:
        b=n&0x7f; n>>=7
        if n: out+=bytes([b|0x80])
        else: return out+bytes([b])
def key(f,wt): return varint((f<<3)|wt)
def vi(f,n): return key(f,0)+varint(n)
def ld(f,b):
    if isinstance(b,str): b=b.encode()
    return key(f,2)+varint(len(b))+b
def dim(d): return ld(1, vi(1,d) if isinstance(d,int) else ld(2,d))
def valueinfo(name, elem=1, shape=None):
    tt=vi(1,elem)
    if shape is not None: tt+=ld(2,b''.join(dim(d) for d in shape))
    return ld(1,name)+ld(2,ld(1,tt))
def node(op, ins, outs, name=''):
    return b''.join(ld(1,i) for i in ins)+b''.join(ld(2,o) for o in outs)+ld(3,name or op)+ld(4,op)
def tensor(name, dims, elem=1, raw=None):
    return b''.join(vi(1,d) for d in dims)+vi(2,elem)+ld(8,name)+(ld(9,raw) if raw is not None else b'')
def model(nodes, inputs, outputs, inits=(), opset=13):
    g=b''.join(ld(1,n) for n in nodes)+ld(2,'g')+b''.join(ld(5,t) for t in inits)+b''.join(ld(11,i) for i in inputs)+b''.join(ld(12,o) for o in outputs)
    return vi(1,8)+ld(8, ld(1,'')+vi(2,opset))+ld(7,g)
def save(path, b): open(path,'wb').write(b)
if __name__=='__main__':
    d=sys.argv[1]
    relu=lambda shape_in, shape_out=None: model([node('Relu',['x'],['y'])],[valueinfo('x',1,shape_in)],[valueinfo('y',1,shape_out if shape_out is not None else shape_in)])
    save(d+'/symbolic.onnx', relu(['N',4]))
    save(d+'/unknownrank.onnx', relu(None, None))
    save(d+'/huge1e5.onnx', relu([100000,100000,100000]))
    save(d+'/opset99.onnx', model([node('Relu',['x'],['y'])],[valueinfo('x',1,[2,3])],[valueinfo('y',1,[2,3])],opset=99))
    save(d+'/unknownop.onnx', model([node('FooBar',['x'],['y'])],[valueinfo('x',1,[2,3])],[valueinfo('y',1,[2,3])]))
    save(d+'/hugeinit.onnx', model([node('Add',['x','w'],['y'])],[valueinfo('x',1,[2,3])],[valueinfo('y',1,[2,3])],inits=[tensor('w',[600000000])]))
    save(d+'/shortraw.onnx', model([node('Add',['x','w'],['y'])],[valueinfo('x',1,[2,3])],[valueinfo('y',1,[2,3])],inits=[tensor('w',[2,3],raw=b'\0'*7)]))
    save(d+'/danglinginput.onnx', model([node('Add',['x','nope'],['y'])],[valueinfo('x',1,[2,3])],[valueinfo('y',1,[2,3])]))
    save(d+'/truncated.onnx', relu([2,3])[:-5])
