"""torch_graph.py - a PyTorch program for `occcalc run --measure sample`'s
GPU tests (tests/run/sample_gpu.sh): a small MLP trained for STEPS steps
(forward, backward, Adam: a few hundred launches of cuBLAS GEMMs,
elementwise and reduction kernels), then its forward pass captured in a
CUDA graph and replayed 9 times. argv[1]: STEPS (default 20)."""
import sys
import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(1024, 4096), torch.nn.GELU(),
    torch.nn.Linear(4096, 1024), torch.nn.LayerNorm(1024)).cuda()
opt = torch.optim.Adam(model.parameters(), lr=1e-4)
x = torch.randn(4096, 1024, device='cuda')
target = torch.randn(4096, 1024, device='cuda')
for _ in range(steps):
    loss = torch.nn.functional.mse_loss(model(x), target)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
torch.cuda.synchronize()
static_x = torch.randn(4096, 1024, device='cuda')
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s), torch.no_grad():
    for _ in range(3):
        model(static_x)
torch.cuda.current_stream().wait_stream(s)
graph = torch.cuda.CUDAGraph()
with torch.no_grad(), torch.cuda.graph(graph):
    static_y = model(static_x)
for _ in range(9):
    static_x.copy_(torch.randn(4096, 1024, device='cuda'))
    graph.replay()
torch.cuda.synchronize()
print('torch_graph: loss %.4f, graph out %.4f' % (float(loss), float(static_y.sum())))
