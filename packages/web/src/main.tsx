// Start: finish or resume the sign-in first (auth.ts), then show the app at the path it answers.
import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { queryClient } from './api.ts';
import { App } from './app.tsx';
import { startAuth } from './auth.ts';
import { ToastProvider } from './ui/toast.tsx';
import './styles.css';

const { path, error } = await startAuth();
if (path !== `${location.pathname}${location.search}`) history.replaceState(null, '', path);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <ToastProvider>
        <App notice={error} />
      </ToastProvider>
    </QueryClientProvider>
  </StrictMode>,
);
