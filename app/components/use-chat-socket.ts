import { useCallback, useEffect, useRef, useState } from "react";
import { chatSocketPath, parseServerEvent, reconnectDelay, type ClientEvent, type ServerEvent } from "~/domain/chat";

export type SocketStatus = "connecting" | "live";

/** Keep-alive: the object answers "ping" with "pong" without waking up. */
const PING_MS = 25_000;

/**
 * The live socket of a conversation: connects, reconnects after a drop with growing delays (at once when the
 * browser comes back online), and hands every event to `onEvent`. `onOpen` runs on each (re)connection, to fetch
 * what was missed.
 */
export function useChatSocket(chatId: string, handlers: { onEvent: (event: ServerEvent) => void; onOpen: () => void }) {
  const [status, setStatus] = useState<SocketStatus>("connecting");
  const socketRef = useRef<WebSocket | null>(null);
  const handlersRef = useRef(handlers);
  useEffect(() => {
    handlersRef.current = handlers;
  });

  useEffect(() => {
    let attempt = 0;
    let stopped = false;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let ping: ReturnType<typeof setInterval> | undefined;

    const connect = () => {
      const url = new URL(chatSocketPath(chatId), window.location.href);
      url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
      const socket = new WebSocket(url);
      socketRef.current = socket;
      socket.onopen = () => {
        attempt = 0;
        setStatus("live");
        handlersRef.current.onOpen();
        ping = setInterval(() => socket.readyState === WebSocket.OPEN && socket.send("ping"), PING_MS);
      };
      socket.onmessage = (message) => {
        if (message.data === "pong") return;
        const event = parseServerEvent(message.data);
        if (event) handlersRef.current.onEvent(event);
      };
      socket.onclose = () => {
        clearInterval(ping);
        if (socketRef.current === socket) socketRef.current = null;
        if (stopped) return;
        setStatus("connecting");
        retry = setTimeout(connect, reconnectDelay(attempt++));
      };
    };
    const reconnectNow = () => {
      if (socketRef.current || stopped) return;
      clearTimeout(retry);
      attempt = 0;
      connect();
    };

    connect();
    window.addEventListener("online", reconnectNow);
    return () => {
      stopped = true;
      clearTimeout(retry);
      clearInterval(ping);
      window.removeEventListener("online", reconnectNow);
      socketRef.current?.close(1000, "Left the conversation");
      socketRef.current = null;
    };
  }, [chatId]);

  /** Sends when the socket is open; false otherwise (the caller falls back to posting the form). */
  const send = useCallback((event: ClientEvent): boolean => {
    const socket = socketRef.current;
    if (!socket || socket.readyState !== WebSocket.OPEN) return false;
    socket.send(JSON.stringify(event));
    return true;
  }, []);

  return { status, send };
}
