"""torch_profiled.py - a PyTorch program that runs its own profiler
(torch.profiler, through Kineto and CUPTI) around a few matrix products,
and prints how many GPU kernel events its trace holds ("kernel events N").
Alone the trace has them; under `occcalc run` CUPTI refuses the
program's client (client_gpu.sh)."""
import torch
from torch.profiler import ProfilerActivity, profile

x = torch.randn(1024, 1024, device='cuda')
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    for _ in range(8):
        x = torch.tanh(x @ x / 1024)
    torch.cuda.synchronize()
kernels = [e for e in prof.events()
           if e.device_type == torch.autograd.DeviceType.CUDA]
print('kernel events', len(kernels))
